# chatserve for the CPU, as a container: docs/scaling.md#the-container-image says how to run it.
#
#   docker build -t chatserve .
#   docker run -p 8080:8080 -v ./models:/models -v chatserve-cache:/cache \
#       -v ./keys:/run/secrets/chatserve-keys:ro chatserve
#
# The build stage compiles llama.cpp with OpenMP for the CPU it builds on (llama.cpp's GGML_NATIVE;
# scripts/buildCpuBackend.mjs), the fastest build on that CPU and on the same kind, and not portable:
# build the image where it runs, or pass --build-arg CHATSERVE_CPU_BUILD=prebuilt for
# node-llama-cpp's portable prebuilt binaries (slower, README "CPU build").

ARG NODE_VERSION=20

FROM node:${NODE_VERSION}-bookworm AS build
# cmake, git and a C++ compiler (with its OpenMP runtime) are what `npm install`'s llama.cpp build needs.
RUN apt-get update \
    && apt-get install -y --no-install-recommends cmake git g++ make ca-certificates \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ARG CHATSERVE_CPU_BUILD=
ENV CHATSERVE_CPU_BUILD=${CHATSERVE_CPU_BUILD}
COPY . .
# `npm install`, as CI does: it compiles llama.cpp (postinstall) and builds dist/ and the chat page (prepare).
RUN npm install --no-audit --no-fund \
    && npm prune --omit=dev --no-audit --no-fund

FROM node:${NODE_VERSION}-bookworm-slim
# The OpenMP runtime the llama.cpp build links against; curl-free health checks use node itself.
RUN apt-get update \
    && apt-get install -y --no-install-recommends libgomp1 ca-certificates \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build --chown=node:node /app/package.json /app/package-lock.json ./
COPY --from=build --chown=node:node /app/bin ./bin
COPY --from=build --chown=node:node /app/dist ./dist
COPY --from=build --chown=node:node /app/node_modules ./node_modules

# The models folder and the prompt cache (its disk tier: prompt prefixes kept across restarts) are
# volumes, each replica with a cache of its own. Both must be writable by the `node` user (uid 1000).
RUN mkdir -p /models /cache && chown node:node /models /cache
VOLUME ["/models", "/cache"]

# --host 0.0.0.0 is how a container is reached, and beyond loopback chatserve wants keys (README
# "Exposing it on a network", docs/security.md): the image reads them from a file, one a line, and
# does not start without it (mount one, or a Docker/Kubernetes secret, at this path). With keys,
# any Host is answered, so a balancer's name needs no --allowed-host.
ENV CHATSERVE_HOST=0.0.0.0 \
    CHATSERVE_PORT=8080 \
    CHATSERVE_MODELS=/models \
    CHATSERVE_API_KEY_FILE=/run/secrets/chatserve-keys \
    CHATSERVE_PROMPT_CACHE_DIR=/cache/prompt-cache \
    XDG_CACHE_HOME=/cache \
    NODE_ENV=production

USER node
EXPOSE 8080

# Readiness, not liveness: unhealthy while draining, while no model can be served, or while the queue is full.
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
    CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.CHATSERVE_PORT}/health/ready`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# SIGTERM (docker stop) drains: replies under way get --shutdown-grace (5 s) to finish, within
# docker stop's 10 s. `docker run IMAGE ls`, `ps` and `pull` work as the CLI's commands.
ENTRYPOINT ["node", "bin/chatserve.cjs"]
CMD ["serve"]
