# syntax=docker/dockerfile:1
# Production image: the UI is built with Node, embedded into the Go binary, and the binary runs
# alone on a distroless base as a non-root user. The image has no PostgreSQL: set DATABASE_URL
# (docker-compose.yml does), since the embedded default needs PostgreSQL's programs.

FROM node:20-bookworm-slim AS ui
WORKDIR /src/ui
COPY ui/package.json ui/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY ui/ ./
RUN npm run build

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
COPY --from=ui /src/ui/dist ./ui/dist
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/clearvest ./cmd/clearvest \
	&& mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/clearvest /usr/local/bin/clearvest
# The data directory holds mail files and uploads; it must exist and belong to the app's user.
COPY --from=build --chown=65532:65532 /out/data /data
# Production: the development tools (mailbox, test clock, demo data, example deposit
# addresses) never run in the image, and serve refuses to start without CLEARVEST_SECRET_KEY,
# CLEARVEST_MAIL_URL and deposit addresses of the operator's own.
ENV CLEARVEST_ENV=production \
	CLEARVEST_DATA_DIR=/data \
	CLEARVEST_ADDR=:8080
VOLUME /data
EXPOSE 8080
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/clearvest"]
CMD ["serve"]
