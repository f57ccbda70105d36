# One image for every talops action. Docker actions run as root with the workspace
# mounted as the working directory, so there is no WORKDIR and no :nonroot base.
# The build stage runs on the builder's platform and cross-compiles for the target's, so a
# multi-arch build (the release workflow's linux/amd64,linux/arm64) needs no emulation.
# Base images by tag and digest: Docker pulls the digest, so a moved tag cannot change what
# a release is built from; hack/pin-base-images.sh moves them (internal/archtest checks).
# The Go release is go.mod's: the image's Go refuses a newer one (GOTOOLCHAIN=local).
FROM --platform=$BUILDPLATFORM golang:1.26.8-bookworm@sha256:dc9ad6c05acc7a88e5b71bde60a5fe3bd4b9f0db209011711b464107438a8107 AS build
ENV CGO_ENABLED=0
# go.work and go.work.sum too: the build uses go.work's replacements, as every build inside
# the repository does (go.work says why).
COPY go.mod go.sum go.work go.work.sum /src/
RUN cd /src && go mod download
COPY . /src
ARG VERSION=dev
ARG TARGETOS
ARG TARGETARCH
RUN cd /src && GOOS=${TARGETOS} GOARCH=${TARGETARCH} go build -trimpath -tags grpcnotrace -ldflags "-s -w -X github.com/talops/talops/internal/cli.Version=${VERSION}" -o /talops ./cmd/talops

FROM gcr.io/distroless/static-debian12:latest@sha256:d75cdd72874d4790092fcb1b058493ecf6bb5bf2b2b897045b00ff01d91843f2
COPY --from=build /talops /talops
ENTRYPOINT ["/talops"]
