# syntax=docker/dockerfile:1
# One image; its argument selects the process: api (default), mailer, migrate (or cli …).
#   docker build -t access-control .
#   docker run --read-only --tmpfs /tmp -v ac-data:/data -p 3000:3000 access-control:local api
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# The admin console (#25): its sources, and the build step that types its client from the served OpenAPI document.
COPY console ./console
COPY scripts/build-console.js scripts/served-openapi.ts ./scripts/
RUN npm run build

# Production dependencies only, installed apart from the build so no dev tool reaches the image.
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    DATA_DIR=/data \
    HOME=/tmp \
    NPM_CONFIG_UPDATE_NOTIFIER=false
# package.json's config.nodeFlags, as `npm start` runs: a smaller young generation (docs/BENCHMARKS.md, the RSS row).
ENV NODE_OPTIONS=--max-semi-space-size=4
# package.json's config.mallocEnv, as `npm start` runs: glibc's mmap threshold fixed at its default, so a large block
# freed once (argon2id's 19 MiB) does not raise it for good and leave every later allocation in heaps that keep what
# they freed (a list load after sign-ins: 374 MB resident without it, 182 MB with it; docs/DECISIONS.md, "Node.js").
ENV MALLOC_MMAP_THRESHOLD_=131072
WORKDIR /app
# Owned by root and not writable by the service user; the only writable paths are /data and /tmp,
# so the container runs with a read-only root filesystem (mount /data and /tmp as volumes).
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json docker-entrypoint.sh ./
RUN chmod 0755 docker-entrypoint.sh && mkdir -p /data && chown node:node /data
# A volume, so `docker run --read-only` works with no mount at all: the engine gives /data an
# anonymous volume owned by the service user (a tmpfs on /data is root's under Podman).
VOLUME ["/data"]
# The numeric id of the image's `node` user, so Kubernetes can verify runAsNonRoot.
USER 1000:1000
# No EXPOSE: each process publishes its own port (api 3000, mailer 9464, migrate none), and
# testcontainers on Podman waits for every EXPOSEd port to be bound, so one the process does not ask for would hang it.
ENTRYPOINT ["/app/docker-entrypoint.sh"]
CMD ["api"]
