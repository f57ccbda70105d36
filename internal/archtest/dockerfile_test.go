package archtest

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The image every talops action runs is built from the Dockerfile (the root action.yml
// builds it on the runner, the release pushes it): a base image named by tag alone can be
// moved to other code under a release. Every FROM names its image by tag and digest: the tag
// for readers and Renovate, the digest for Docker, which pulls it whatever the tag says now
// (docs/threat-model.md; hack/pin-base-images.sh moves both).

// fromLine is one FROM instruction of a Dockerfile.
type fromLine struct {
	file string
	line int
	// image is what the stage starts from; stage its name (AS …), if any.
	image, stage string
}

// dockerfileFroms reads the FROM instructions of a Dockerfile's text.
func dockerfileFroms(file string, data []byte) []fromLine {
	var out []fromLine

	sc := bufio.NewScanner(bytes.NewReader(data))
	n := 0

	for sc.Scan() {
		n++

		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || !strings.EqualFold(fields[0], "FROM") {
			continue
		}

		fields = fields[1:]
		for len(fields) > 0 && strings.HasPrefix(fields[0], "--") {
			fields = fields[1:]
		}

		if len(fields) == 0 {
			out = append(out, fromLine{file: file, line: n})

			continue
		}

		f := fromLine{file: file, line: n, image: fields[0]}
		if len(fields) >= 3 && strings.EqualFold(fields[1], "AS") {
			f.stage = fields[2]
		}

		out = append(out, f)
	}

	return out
}

// pinnedImage is an image by tag and digest: registry/name:tag@sha256:<64 hex>.
var pinnedImage = regexp.MustCompile(`^[a-z0-9][a-z0-9._/-]*(:[0-9]+)?/?[a-z0-9._/-]*:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}@sha256:[0-9a-f]{64}$`)

// fromProblem says why a FROM may start from other code tomorrow, or "" when it cannot.
// stages are the names of the stages before it.
func fromProblem(f fromLine, stages map[string]bool) string {
	switch {
	case f.image == "":
		return "FROM names no image"
	case stages[strings.ToLower(f.image)], f.image == "scratch":
		return ""
	case strings.Contains(f.image, "$"):
		return "an image from a build argument: its digest cannot be checked here"
	case !strings.Contains(f.image, "@sha256:"):
		return "an image by tag alone: pin it by digest, as image:tag@sha256:<digest>"
	case !pinnedImage.MatchString(f.image):
		return "not image:tag@sha256:<64 hex>: keep the tag beside the digest, for readers and Renovate"
	}

	return ""
}

func TestDockerfiles_EveryBaseImageIsPinnedByDigest(t *testing.T) {
	t.Parallel()

	root := repoRoot(t)
	count := 0

	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}

		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}

			return nil
		}

		name := strings.ToLower(d.Name())
		if !strings.HasPrefix(name, "dockerfile") && !strings.HasSuffix(name, ".dockerfile") && !strings.HasPrefix(name, "containerfile") {
			return nil
		}

		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}

		rel, _ := filepath.Rel(root, path)
		stages := map[string]bool{}

		for _, f := range dockerfileFroms(rel, data) {
			count++

			if p := fromProblem(f, stages); p != "" {
				t.Errorf("%s:%d: FROM %s: %s", f.file, f.line, f.image, p)
			}

			if f.stage != "" {
				stages[strings.ToLower(f.stage)] = true
			}
		}

		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	// A walk that found nothing would pass: the root Dockerfile has two stages.
	if count < 2 {
		t.Fatalf("found %d FROM instructions, want at least the Dockerfile's two", count)
	}
}

func TestFromProblem_RefusesWhatCanMove(t *testing.T) {
	t.Parallel()

	digest := "@sha256:" + strings.Repeat("ab", 32)

	tests := []struct {
		name, text string
		pinned     bool
	}{
		{name: "tag and digest", text: "FROM golang:1.26.8-bookworm" + digest + " AS build", pinned: true},
		{name: "tag and digest for the builder's platform", text: "FROM --platform=$BUILDPLATFORM golang:1.26.8" + digest + " AS build", pinned: true},
		{name: "registry, path, tag and digest", text: "FROM gcr.io/distroless/static-debian12:latest" + digest, pinned: true},
		{name: "registry with a port", text: "from registry.example:5000/talops/base:v1" + digest, pinned: true},
		{name: "an earlier stage", text: "FROM golang:1.26" + digest + " AS build\nFROM build", pinned: true},
		{name: "scratch", text: "FROM scratch", pinned: true},
		{name: "tag alone", text: "FROM golang:1.26"},
		{name: "no tag", text: "FROM golang"},
		{name: "digest without its tag", text: "FROM golang" + digest},
		{name: "a short digest", text: "FROM golang:1.26@sha256:abcdef"},
		{name: "a build argument", text: "ARG BASE=golang:1.26" + digest + "\nFROM ${BASE}"},
		{name: "a stage named later", text: "FROM build\nFROM golang:1.26" + digest + " AS build"},
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			stages := map[string]bool{}
			pinned := true

			for _, f := range dockerfileFroms("Dockerfile", []byte(tt.text)) {
				if fromProblem(f, stages) != "" {
					pinned = false
				}

				if f.stage != "" {
					stages[strings.ToLower(f.stage)] = true
				}
			}

			if pinned != tt.pinned {
				t.Errorf("%q: pinned %v, want %v", tt.text, pinned, tt.pinned)
			}
		})
	}
}
