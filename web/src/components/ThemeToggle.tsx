import {useEffect, useState} from "preact/hooks";

type Theme = "system" | "light" | "dark";
const order: Theme[] = ["system", "light", "dark"];

/** Light, dark, or the system's choice (the default), kept in this browser. */
export function ThemeToggle() {
    const [theme, setTheme] = useState<Theme>(() => (localStorage.getItem("chatserve.theme") as Theme | null) ?? "system");
    useEffect(() => {
        localStorage.setItem("chatserve.theme", theme);
        if (theme === "system")
            delete document.documentElement.dataset.theme;
        else
            document.documentElement.dataset.theme = theme;
    }, [theme]);
    return (
        <button type="button" class="theme" aria-label={`Theme: ${theme}. Change theme`}
            onClick={() => setTheme(order[(order.indexOf(theme) + 1) % order.length]!)}>
            {theme === "dark" ? "☾" : theme === "light" ? "☀" : "◐"}
        </button>
    );
}
