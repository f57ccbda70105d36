# One image for every talops action. Docker actions run as root with the workspace
# mounted as the working directory, so there is no WORKDIR and no :nonroot base.
# The build stage runs on the builder's platform and cross-compiles for the target's, so a
# multi-arch build (the release workflow's linux/amd64,linux/arm64) needs no emulation.
FROM --platform=$BUILDPLATFORM golang:1.26 AS build
ENV CGO_ENABLED=0
# go.work and go.work.sum too: the build uses go.work's replacements, as every build inside
# the repository does (go.work says why).
COPY go.mod go.sum go.work go.work.sum /src/
RUN cd /src && go mod download
COPY . /src
ARG VERSION=dev
ARG TARGETOS
ARG TARGETARCH
RUN cd /src && GOOS=${TARGETOS} GOARCH=${TARGETARCH} go build -trimpath -ldflags "-s -w -X github.com/talops/talops/internal/cli.Version=${VERSION}" -o /talops ./cmd/talops

FROM gcr.io/distroless/static-debian12
COPY --from=build /talops /talops
ENTRYPOINT ["/talops"]
