# syntax=docker/dockerfile:1
#
# Storefront: one image holds every executable; the container's command
# picks which one runs:
#
#   catalog | checkout | webhook-receiver | subscription-projector | reconciler | webhook-sender
#   provider-sandbox | storefront <command>   (operator CLI, e.g. `storefront migrate`)
#
# Both stages are Ubuntu 24.04 (noble). Its librdkafka is 2.3, new enough
# for brokers that send tagged fields in ApiVersions v3 (docs/architecture.md, "C libraries": >= 2.2),
# so nothing is vendored here. Secrets never enter the image: compose mounts
# them as files at run time (see docker-compose.yml and deploy/secrets/).
#
#   docker build -t storefront .
#   docker run --rm storefront storefront help

# The official Swift image for Ubuntu 24.04; pin a patch release or a digest
# with --build-arg SWIFT_IMAGE=... for reproducible builds.
ARG SWIFT_IMAGE=swift:6.3-noble
ARG RUNTIME_IMAGE=ubuntu:24.04

# --- build -------------------------------------------------------------------
FROM ${SWIFT_IMAGE} AS build

# Headers and pkg-config files of the C libraries the system-library targets
# (Shared/Platform/C/C*) name. This layer only changes when the list changes.
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      pkg-config libpq-dev librdkafka-dev libcurl4-openssl-dev libmicrohttpd-dev libssl-dev \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /src

# Manifest first: resolving (and compiling the manifest) is cached until
# Package.swift changes, however often the sources do. Storefront has no
# outside Swift packages today; should one appear, it is fetched here.
COPY Package.swift ./
RUN swift package resolve

# Only what the build needs; scripts, deploy files and a developer's .build
# and .vendor stay out (see also .dockerignore). Tests/ is copied because
# SwiftPM checks that every target's folder exists, test targets included;
# the release build does not compile them.
COPY Shared ./Shared
COPY SDK ./SDK
COPY Services ./Services
COPY Tools ./Tools
COPY Tests ./Tests

# Release build of every executable. The Swift runtime and Foundation are
# linked statically, so the runtime stage needs no Swift toolchain, only the
# C libraries below.
ARG EXECUTABLES="catalog checkout webhook-receiver subscription-projector reconciler webhook-sender provider-sandbox storefront"
RUN swift build -c release --static-swift-stdlib \
 && bin=$(swift build -c release --show-bin-path) \
 && mkdir -p /out \
 && for exe in $EXECUTABLES; do \
      install -m 0755 "$bin/$exe" /out/ || { echo "executable $exe was not built" >&2; exit 1; }; \
    done \
 && strip /out/*

# --- run ---------------------------------------------------------------------
FROM ${RUNTIME_IMAGE} AS runtime

# Only the shared libraries the executables link (noble's t64 package names),
# CA certificates for the providers' HTTPS APIs, and curl for healthchecks
# (it reuses libcurl, which the services need anyway).
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      libpq5 librdkafka1 libcurl4t64 libmicrohttpd12t64 libssl3t64 libstdc++6 ca-certificates curl \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 storefront \
 && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin storefront

COPY --from=build /out/ /usr/local/bin/

# Numeric, so orchestrators can verify the user is not root without
# reading /etc/passwd. Secret files mounted for the services must be
# readable by uid 10001 (deploy/secrets/README.md).
USER 10001:10001
WORKDIR /tmp
EXPOSE 8080
# The commit the image was built from, for the storefront_build_info metric:
#   docker build --build-arg STOREFRONT_COMMIT=$(git rev-parse --short HEAD) .
ARG STOREFRONT_COMMIT=unknown
ENV HOST=0.0.0.0 \
    PORT=8080 \
    STOREFRONT_COMMIT=${STOREFRONT_COMMIT}

LABEL org.opencontainers.image.title="storefront" \
      org.opencontainers.image.description="Storefront services; the command picks one: catalog, checkout, webhook-receiver, subscription-projector, reconciler, webhook-sender, provider-sandbox, storefront"

CMD ["catalog"]
