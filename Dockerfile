# syntax=docker/dockerfile:1
# Portico images. The default target is the OSS image: its stages (build, runtime) copy only the OSS workspace
# packages, so no Enterprise source, dependency (pg) or dist/ can end up in it. The `enterprise` target builds
# the Enterprise edition in stages of its own.
#   docker build -t ghcr.io/portico-dev/portico:0.1.0 .
#   docker build --target enterprise -t ghcr.io/portico-dev/portico-enterprise:0.1.0 .

ARG NODE_IMAGE=node:20-bookworm-slim

# ---- build: install everything, compile, then drop dev dependencies ------------------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /src
ENV npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false

# Manifests first, so the dependency layer is reused while only sources change.
COPY package.json package-lock.json ./
COPY packages/api/package.json packages/api/
COPY packages/core/package.json packages/core/
COPY packages/client/package.json packages/client/
COPY packages/server/package.json packages/server/
COPY packages/cli/package.json packages/cli/
RUN npm ci

COPY tsconfig.base.json tsconfig.json ./
COPY packages/api packages/api
COPY packages/core packages/core
COPY packages/client packages/client
COPY packages/server packages/server
COPY packages/cli packages/cli
RUN npm run build && npm prune --omit=dev

# Assemble exactly what runs: root node_modules (workspace links point at packages/*), and per OSS package its
# package.json, dist/ and nested production node_modules when npm had to create one.
RUN set -eu; \
    mkdir -p /out/packages; \
    cp package.json /out/; \
    cp -a node_modules /out/node_modules; \
    for pkg in api core client server cli; do \
      mkdir -p "/out/packages/$pkg"; \
      cp "packages/$pkg/package.json" "/out/packages/$pkg/"; \
      cp -a "packages/$pkg/dist" "/out/packages/$pkg/dist"; \
      if [ -d "packages/$pkg/node_modules" ]; then cp -a "packages/$pkg/node_modules" "/out/packages/$pkg/node_modules"; fi; \
    done

# ---- Enterprise edition: its own build and runtime stages (never the default target) -------------------
FROM ${NODE_IMAGE} AS build-enterprise
WORKDIR /src
ENV npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
COPY package.json package-lock.json ./
COPY packages/api/package.json packages/api/
COPY packages/core/package.json packages/core/
COPY packages/client/package.json packages/client/
COPY packages/server/package.json packages/server/
COPY packages/cli/package.json packages/cli/
COPY packages/enterprise/package.json packages/enterprise/
RUN npm ci

COPY tsconfig.base.json tsconfig.json ./
COPY packages/api packages/api
COPY packages/core packages/core
COPY packages/client packages/client
COPY packages/server packages/server
COPY packages/cli packages/cli
COPY packages/enterprise packages/enterprise
RUN npm run build && npm prune --omit=dev

# The Enterprise server needs api, core, server and its own dist plus its SQL migrations.
RUN set -eu; \
    mkdir -p /out/packages; \
    cp package.json /out/; \
    cp -a node_modules /out/node_modules; \
    for pkg in api core server enterprise; do \
      mkdir -p "/out/packages/$pkg"; \
      cp "packages/$pkg/package.json" "/out/packages/$pkg/"; \
      cp -a "packages/$pkg/dist" "/out/packages/$pkg/dist"; \
      if [ -d "packages/$pkg/node_modules" ]; then cp -a "packages/$pkg/node_modules" "/out/packages/$pkg/node_modules"; fi; \
    done; \
    cp -a packages/enterprise/migrations /out/packages/enterprise/migrations

FROM ${NODE_IMAGE} AS enterprise
LABEL org.opencontainers.image.title="Portico Enterprise" \
      org.opencontainers.image.description="Self-service platform API for Kubernetes teams (Enterprise edition, needs PostgreSQL)"
ENV NODE_ENV=production \
    SERVER_ADDRESS=:8080
WORKDIR /app
COPY --from=build-enterprise --chown=0:0 /out/ /app/
USER 10001:10001
EXPOSE 8080
ENTRYPOINT ["node", "packages/enterprise/dist/bin.js"]

# ---- runtime (OSS, the default target: keep it the last stage) --------------------------------------
FROM ${NODE_IMAGE} AS runtime
LABEL org.opencontainers.image.title="Portico" \
      org.opencontainers.image.description="Self-service platform API for Kubernetes teams (OSS edition)"
ENV NODE_ENV=production \
    SERVER_ADDRESS=:8080
WORKDIR /app
# gitops and hybrid deployments push with `git` over HTTPS and SSH (ssh from openssh-client); nothing else is
# added to the base image.
RUN apt-get update \
 && apt-get install -y --no-install-recommends git openssh-client ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build --chown=0:0 /out/ /app/

# An unprivileged numeric user (no entry in /etc/passwd needed); files stay root-owned and read-only to it.
USER 10001:10001
EXPOSE 8080
ENTRYPOINT ["node", "packages/server/dist/bin.js"]
