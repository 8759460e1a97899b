# syntax=docker/dockerfile:1
#
# journalship on Fluent Bit: the official Fluent Bit image with the
# journalship output plugin, its configuration and the journalship CLI
# (retention agent, finalizer, verify, simulate).
#
#   docker build -t journalship .
#   docker run -v /data/sessions:/data/sessions:ro -v /var/lib/journalship:/var/lib/journalship journalship
#
# The same build as `make build`, minus apt (the Go image has gcc and libc
# headers). Built on Debian 12 (glibc 2.36): the .so runs on the Fluent Bit
# image's newer glibc (distroless Debian 13), not the other way round.
FROM golang:1.26-bookworm AS build
WORKDIR /src
# Only the packages of the plugin and the CLI are built, so only their
# modules are downloaded (go.mod also lists test-only ones).
COPY . .
# The plugin needs cgo (Fluent Bit loads it with dlopen); the CLI does not
# (SQLite is modernc.org/sqlite, pure Go), so it is static.
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=1 go build -trimpath -buildvcs=false -buildmode=c-shared -o /out/out_journalship.so ./plugin && \
    CGO_ENABLED=0 go build -trimpath -buildvcs=false -o /out/journalship ./cmd/journalship

# Distroless: no shell, so no RUN below and exec-form ENTRYPOINT/CMD only.
FROM fluent/fluent-bit:5.1.1
COPY --from=build /out/out_journalship.so /fluent-bit/plugins/out_journalship.so
COPY --from=build /out/journalship /fluent-bit/bin/journalship
# The plugin is loaded with -e, as from a clone (no plugins file: one way to
# load it everywhere). Kubernetes mounts its ConfigMap over /fluent-bit/etc/.
COPY fluent-bit.conf /fluent-bit/etc/
# 2020 Fluent Bit HTTP server, 2021 plugin metrics, 2022 retention metrics.
EXPOSE 2020 2021 2022
ENTRYPOINT ["/fluent-bit/bin/fluent-bit"]
CMD ["-e", "/fluent-bit/plugins/out_journalship.so", "-c", "/fluent-bit/etc/fluent-bit.conf"]
