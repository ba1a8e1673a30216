# syntax=docker/dockerfile:1
# One image; the command selects the process: api (default), mailer or migrate.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
# Node runs as PID 1 and handles SIGTERM itself (graceful shutdown in src/interfaces/http/main.ts).
ENTRYPOINT ["node"]
CMD ["dist/src/interfaces/http/main.js"]
