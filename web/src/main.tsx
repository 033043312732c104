import {render} from "preact";
import {App} from "./App.js";

render(<App />, document.getElementById("app")!);
