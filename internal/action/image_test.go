package action_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/testlab"
)

// publishedImage is an actions/*/action.yml image: the release workflow's image, by tag and
// optionally pinned by digest (hack/pin-image.sh).
var publishedImage = regexp.MustCompile(`^docker://(ghcr\.io/talops/talops):v\d+\.\d+\.\d+[0-9A-Za-z.+-]*(@sha256:[0-9a-f]{64})?$`)

func actionNames(t *testing.T, root string) []string {
	t.Helper()

	entries, err := os.ReadDir(filepath.Join(root, "actions"))
	if err != nil {
		t.Fatal(err)
	}

	var names []string

	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}

	if len(names) == 0 {
		t.Fatalf("no actions under %s", root)
	}

	return names
}

func TestActionYAML_EveryActionRunsTheSameImageTheReleaseWorkflowPublishes(t *testing.T) {
	t.Parallel()

	images := map[string]string{}

	for _, name := range actionNames(t, testlab.Root()) {
		m := readMeta(t, "actions", name, "action.yml")
		if !publishedImage.MatchString(m.Runs.Image) {
			t.Errorf("actions/%s runs %q, want docker://ghcr.io/talops/talops:vX.Y.Z[@sha256:…]", name, m.Runs.Image)
		}

		images[m.Runs.Image] = name
	}

	if len(images) != 1 {
		t.Errorf("the actions run %d different images, want one: %v", len(images), images)
	}

	// The image the actions pull is the one the release workflow pushes.
	var workflow struct {
		Jobs map[string]struct {
			Steps []struct {
				Uses string            `yaml:"uses"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}

	data, err := os.ReadFile(filepath.Join(testlab.Root(), ".github", "workflows", "release.yml"))
	if err != nil {
		t.Fatal(err)
	}

	if err := yaml.Unmarshal(data, &workflow); err != nil {
		t.Fatal(err)
	}

	var pushed []string

	for _, step := range workflow.Jobs["image"].Steps {
		if strings.HasPrefix(step.Uses, "docker/metadata-action@") {
			pushed = append(pushed, step.With["images"])
		}
	}

	for image := range images {
		if m := publishedImage.FindStringSubmatch(image); m != nil && (len(pushed) != 1 || pushed[0] != m[1]) {
			t.Errorf("the actions run %s, the release workflow pushes %v", m[1], pushed)
		}
	}
}

// pinCopy runs hack/pin-image.sh on a copy of the actions' metadata and returns the copy.
func pinCopy(t *testing.T, ref string) (string, []byte, error) {
	t.Helper()

	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}

	root := t.TempDir()

	for _, name := range actionNames(t, testlab.Root()) {
		data, err := os.ReadFile(filepath.Join(testlab.Root(), "actions", name, "action.yml"))
		if err != nil {
			t.Fatal(err)
		}

		if err := os.MkdirAll(filepath.Join(root, "actions", name), 0o755); err != nil {
			t.Fatal(err)
		}

		if err := os.WriteFile(filepath.Join(root, "actions", name, "action.yml"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	var out bytes.Buffer

	cmd := exec.Command("bash", filepath.Join(testlab.Root(), "hack", "pin-image.sh"), ref, root)
	cmd.Stdout, cmd.Stderr = &out, &out

	return root, out.Bytes(), cmd.Run()
}

func TestPinImage_PinsEveryActionByDigestAndChangesNothingElse(t *testing.T) {
	t.Parallel()

	ref := "ghcr.io/talops/talops:v0.2.0@sha256:" + strings.Repeat("ab", 32)

	root, out, err := pinCopy(t, ref)
	if err != nil {
		t.Fatalf("pin-image.sh: %v\n%s", err, out)
	}

	for _, name := range actionNames(t, testlab.Root()) {
		before, err := os.ReadFile(filepath.Join(testlab.Root(), "actions", name, "action.yml"))
		if err != nil {
			t.Fatal(err)
		}

		after, err := os.ReadFile(filepath.Join(root, "actions", name, "action.yml"))
		if err != nil {
			t.Fatal(err)
		}

		old := readMeta(t, "actions", name, "action.yml").Runs.Image
		want := strings.Replace(string(before), "image: "+old+"\n", "image: docker://"+ref+"\n", 1)

		if string(after) != want {
			t.Errorf("actions/%s after pinning:\n%s\nwant:\n%s", name, after, want)
		}
	}
}

func TestPinImage_RefusesAReferenceWithoutADigest(t *testing.T) {
	t.Parallel()

	for _, ref := range []string{
		"ghcr.io/talops/talops:v0.2.0",
		"ghcr.io/other/talops:v0.2.0@sha256:" + strings.Repeat("ab", 32),
		"ghcr.io/talops/talops:latest@sha256:" + strings.Repeat("ab", 32),
	} {
		root, out, err := pinCopy(t, ref)
		if err == nil {
			t.Errorf("pin-image.sh %s succeeded:\n%s", ref, out)
		}

		for _, name := range actionNames(t, testlab.Root()) {
			before, _ := os.ReadFile(filepath.Join(testlab.Root(), "actions", name, "action.yml"))
			after, _ := os.ReadFile(filepath.Join(root, "actions", name, "action.yml"))

			if !bytes.Equal(before, after) {
				t.Errorf("pin-image.sh %s changed actions/%s", ref, name)
			}
		}
	}
}
