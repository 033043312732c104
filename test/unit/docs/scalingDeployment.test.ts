import fs from "node:fs";
import {Command, type Option} from "commander";
import {describe, expect, it} from "vitest";
import {parseAllDocuments} from "yaml";
import {serveCommand} from "../../../src/cli/serveCommand.js";

/**
 * docs/scaling/inference-pool.yaml and the Dockerfile are not run here (no cluster, no Docker):
 * this holds them to what can be checked without one. The manifest must parse, each resource must
 * have what its schema requires (the InferencePool's from the v1 CRD of the Gateway API Inference
 * Extension), the pieces must fit together (selectors, ports, probes on chatserve's routes), and
 * every flag and environment variable they give chatserve must be one the CLI takes.
 */
const manifestText = fs.readFileSync(new URL("../../../docs/scaling/inference-pool.yaml", import.meta.url), "utf8");
const dockerfile = fs.readFileSync(new URL("../../../Dockerfile", import.meta.url), "utf8");

type Resource = {apiVersion: string, kind: string, metadata: {name: string, labels?: Record<string, string>}, spec: any};

function resources(): Resource[] {
    const documents = parseAllDocuments(manifestText);
    for (const document of documents)
        expect(document.errors.map((error) => error.message)).toEqual([]);
    return documents.map((document) => document.toJS() as Resource);
}

function only(kind: string): Resource {
    const found = resources().filter((resource) => resource.kind === kind);
    expect(found).toHaveLength(1);
    return found[0]!;
}

/** The options `chatserve serve` takes, by long flag. */
function serveOptions(): Map<string, Option> {
    const program = serveCommand(new Command("chatserve"));
    const serve = program.commands.find((command) => command.name() === "serve")!;
    return new Map(serve.options.map((option) => [option.long!, option]));
}

const isPort = (value: unknown) => Number.isInteger(value) && (value as number) >= 1 && (value as number) <= 65535;

describe("docs/scaling/inference-pool.yaml", () => {
    it("parses as YAML: a Deployment, a Service, an InferencePool and an HTTPRoute, each named", () => {
        const parsed = resources();
        expect(parsed.map((resource) => `${resource.apiVersion} ${resource.kind}`)).toEqual([
            "apps/v1 Deployment", "v1 Service", "inference.networking.k8s.io/v1 InferencePool", "gateway.networking.k8s.io/v1 HTTPRoute"
        ]);
        for (const resource of parsed)
            expect(resource.metadata.name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
    });

    it("has an InferencePool as the v1 CRD requires it: selector.matchLabels, one target port, an endpoint picker", () => {
        const {spec} = only("InferencePool");
        expect(Object.keys(spec).sort()).toEqual(["endpointPickerRef", "selector", "targetPorts"]);
        expect(Object.keys(spec.selector)).toEqual(["matchLabels"]);
        for (const [key, value] of Object.entries(spec.selector.matchLabels as Record<string, string>)) {
            expect(key).toMatch(/^[a-zA-Z0-9]([-a-zA-Z0-9_.]*[a-zA-Z0-9])?$/);
            expect(value).toMatch(/^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/);
        }
        expect(spec.targetPorts).toHaveLength(1);
        expect(isPort(spec.targetPorts[0].number)).toBe(true);
        expect(spec.endpointPickerRef.name).toMatch(/^.{1,253}$/);
        expect(isPort(spec.endpointPickerRef.port.number)).toBe(true);
        expect(["FailOpen", "FailClose"]).toContain(spec.endpointPickerRef.failureMode);
    });

    it("fits together: the pool and the Service select the Deployment's pods, on the port chatserve listens on", () => {
        const deployment = only("Deployment");
        const pool = only("InferencePool");
        const service = only("Service");
        const podLabels = deployment.spec.template.metadata.labels as Record<string, string>;
        expect(podLabels).toMatchObject(deployment.spec.selector.matchLabels);
        expect(podLabels).toMatchObject(pool.spec.selector.matchLabels);
        expect(podLabels).toMatchObject(service.spec.selector);
        const container = deployment.spec.template.spec.containers[0];
        expect(container.ports.map((port: {containerPort: number}) => port.containerPort)).toContain(pool.spec.targetPorts[0].number);
        // The image listens on CHATSERVE_PORT.
        expect(dockerfile).toContain(`CHATSERVE_PORT=${pool.spec.targetPorts[0].number}`);
        const route = only("HTTPRoute");
        expect(route.spec.rules[0].backendRefs[0]).toEqual({group: "inference.networking.k8s.io", kind: "InferencePool", name: pool.metadata.name});
    });

    it("probes readiness on /health/ready and liveness on /health, and waits out the drain", () => {
        const pod = only("Deployment").spec.template.spec;
        const container = pod.containers[0];
        expect(container.readinessProbe.httpGet.path).toBe("/health/ready");
        expect(container.livenessProbe.httpGet.path).toBe("/health");
        const grace = Number(/^--shutdown-grace=(\d+)s$/.exec(container.args.find((arg: string) => arg.startsWith("--shutdown-grace=")))?.[1]);
        const preStop = Number(container.lifecycle.preStop.exec.command[1]);
        expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(grace + preStop);
    });

    it("gives chatserve only flags it takes, with values it accepts", () => {
        const options = serveOptions();
        const [command, ...flags] = only("Deployment").spec.template.spec.containers[0].args as string[];
        expect(command).toBe("serve");
        for (const flag of flags) {
            const [name, value] = flag.split(/=(.*)/s);
            const option = options.get(name!);
            expect(option, flag).toBeDefined();
            if (option!.parseArg != null && value != null)
                expect(() => option!.parseArg!(value, undefined), flag).not.toThrow();
            expect(option!.required || option!.optional ? value != null : value == null, flag).toBe(true);
        }
    });
});

describe("the Dockerfile", () => {
    it("sets only environment variables chatserve reads, and serves on every interface with a key file", () => {
        const envVars = new Set([...serveOptions().values()].map((option) => option.envVar).filter((name) => name != null));
        const set = [...dockerfile.matchAll(/\b(CHATSERVE_[A-Z_]+)=/g)].map((match) => match[1]!);
        expect(set.length).toBeGreaterThan(0);
        for (const name of set.filter((name) => name !== "CHATSERVE_CPU_BUILD"))
            expect(envVars, name).toContain(name);
        expect(dockerfile).toContain("CHATSERVE_HOST=0.0.0.0");
        expect(dockerfile).toMatch(/CHATSERVE_API_KEY_FILE=\/run\/secrets\//);
    });

    it("runs as a non-root user, with the models and the prompt cache as volumes, and checks /health/ready", () => {
        expect(dockerfile).toMatch(/^USER node$/m);
        expect(dockerfile).toMatch(/^VOLUME \["\/models", "\/cache"\]$/m);
        expect(dockerfile).toMatch(/^HEALTHCHECK [^\n]*\\\n\s+CMD [^\n]*\/health\/ready/m);
    });
});
