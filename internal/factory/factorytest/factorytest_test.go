package factorytest_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/talops/talops/internal/factory/factorytest"
	"github.com/talops/talops/internal/schematic"
)

// recordingT collects what the fake reports, so tests can check that it
// fails a test when it should.
type recordingT struct {
	mu       sync.Mutex
	errors   []string
	cleanups []func()
}

func (r *recordingT) Helper() {}

func (r *recordingT) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()

	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recordingT) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }

// finish runs the cleanups as the end of a test would and returns the errors.
func (r *recordingT) finish() []string {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}

	r.mu.Lock()
	defer r.mu.Unlock()

	return r.errors
}

func get(t *testing.T, c *http.Client, url string) (int, string) {
	t.Helper()

	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close() //nolint:errcheck // read-only

	body, _ := io.ReadAll(resp.Body)

	return resp.StatusCode, string(body)
}

func TestServer_UnexpectedRequestFailsTheTest(t *testing.T) {
	rt := &recordingT{}
	fake := factorytest.New(rt)

	status, _ := get(t, fake.Client(), fake.URL()+"/versions")

	errs := rt.finish()
	if status != http.StatusNotFound {
		t.Errorf("status = %d, want 404", status)
	}

	if len(errs) != 1 || !strings.Contains(errs[0], "unexpected request GET /versions") {
		t.Errorf("errors = %q, want one naming GET /versions", errs)
	}
}

func TestServer_RequestBeyondTheExpectedTimesFailsTheTest(t *testing.T) {
	rt := &recordingT{}
	fake := factorytest.New(rt)
	fake.ExpectVersions("v1.13.9")

	get(t, fake.Client(), fake.URL()+"/versions")
	get(t, fake.Client(), fake.URL()+"/versions")

	if errs := rt.finish(); len(errs) != 1 || !strings.Contains(errs[0], "unexpected request GET /versions") {
		t.Errorf("errors = %q, want one for the second call", errs)
	}
}

func TestServer_UnusedExpectationFailsAtCleanup(t *testing.T) {
	rt := &recordingT{}
	fake := factorytest.New(rt)
	fake.ExpectVersions("v1.13.9")
	fake.ExpectExtensions("v1.13.9").Times(2)

	get(t, fake.Client(), fake.URL()+"/version/v1.13.9/extensions/official")

	errs := rt.finish()
	if len(errs) != 1 {
		t.Fatalf("errors = %q, want one listing the unused expectations", errs)
	}

	for _, want := range []string{"GET /versions", "GET /version/v1.13.9/extensions/official (answered 0 of 0 failures, 1 of 2 times)"} {
		if !strings.Contains(errs[0], want) {
			t.Errorf("error %q does not name %q", errs[0], want)
		}
	}
}

func TestServer_FailFirstThenAnswers(t *testing.T) {
	rt := &recordingT{}
	fake := factorytest.New(rt)
	fake.ExpectVersions("v1.13.8", "v1.13.9").FailFirst(2, http.StatusServiceUnavailable)

	var got []string

	for range 3 {
		status, body := get(t, fake.Client(), fake.URL()+"/versions")
		got = append(got, fmt.Sprintf("%d %s", status, strings.TrimSpace(body)))
	}

	want := []string{
		"503 factorytest: injected failure 503",
		"503 factorytest: injected failure 503",
		`200 ["v1.13.8","v1.13.9"]`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("answers =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	if errs := rt.finish(); len(errs) != 0 {
		t.Errorf("errors = %q, want none", errs)
	}
}

func TestServer_ExtensionsUseTheFactoryJSONKeys(t *testing.T) {
	rt := &recordingT{}
	fake := factorytest.New(rt)
	fake.ExpectExtensions("1.13.9", factorytest.Ext("siderolabs/qemu-guest-agent", "10.0.2"))

	_, body := get(t, fake.Client(), fake.URL()+"/version/v1.13.9/extensions/official")

	var items []map[string]string
	if err := json.Unmarshal([]byte(body), &items); err != nil {
		t.Fatal(err)
	}

	if len(items) != 1 {
		t.Fatalf("items = %v", items)
	}

	for _, key := range []string{"name", "ref", "digest", "author", "description"} {
		if items[0][key] == "" {
			t.Errorf("item has no %q: %v", key, items[0])
		}
	}

	if items[0]["ref"] != "ghcr.io/siderolabs/qemu-guest-agent:10.0.2" {
		t.Errorf("ref = %q", items[0]["ref"])
	}

	if errs := rt.finish(); len(errs) != 0 {
		t.Errorf("errors = %q", errs)
	}
}

func post(t *testing.T, fake *factorytest.Server, body string) (int, string) {
	t.Helper()

	resp, err := fake.Client().Post(fake.URL()+"/schematics", "application/yaml", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close() //nolint:errcheck // read-only

	b, _ := io.ReadAll(resp.Body)

	return resp.StatusCode, string(b)
}

func TestServer_RegisterAnswersIDAndCanonicalSchematic(t *testing.T) {
	rt := &recordingT{}
	fake := factorytest.New(rt)
	fake.ExpectRegister(nil)

	status, body := post(t, fake, "customization:\n  systemExtensions:\n    officialExtensions: [siderolabs/qemu-guest-agent]\n")

	if status != http.StatusCreated {
		t.Errorf("status = %d, want 201", status)
	}

	want := `{"id":"ce4c980550dd2ab1b17bbf2b08801c7eb59418eafe8f279833297925d67c7515",` +
		`"schematic":"customization:\n    systemExtensions:\n        officialExtensions:\n            - siderolabs/qemu-guest-agent\n"}`
	if strings.TrimSpace(body) != want {
		t.Errorf("body = %s\nwant   %s", body, want)
	}

	if errs := rt.finish(); len(errs) != 0 {
		t.Errorf("errors = %q", errs)
	}
}

func TestServer_RegisterRejectsWhatTheFactoryRejects(t *testing.T) {
	rt := &recordingT{}
	fake := factorytest.New(rt)
	fake.ExpectRegister(nil)

	status, body := post(t, fake, "customization:\n  extensions: [siderolabs/zfs]\n")

	if status != http.StatusBadRequest || !strings.Contains(body, `unknown field "extensions"`) {
		t.Errorf("answer = %d %s, want 400 naming the field", status, body)
	}

	if errs := rt.finish(); len(errs) != 0 {
		t.Errorf("errors = %q", errs)
	}
}

func TestServer_RegisterOfAnotherSchematicFailsTheTest(t *testing.T) {
	rt := &recordingT{}
	fake := factorytest.New(rt)
	fake.ExpectRegister(&schematic.Schematic{})

	post(t, fake, "customization: {extraKernelArgs: [noapic]}\n")

	errs := rt.finish()
	if len(errs) != 2 {
		t.Fatalf("errors = %q, want the wrong schematic and the unused expectation", errs)
	}

	if !strings.Contains(errs[0], "registered another schematic than expected") || !strings.Contains(errs[0], "noapic") {
		t.Errorf("first error %q does not show the schematic registered", errs[0])
	}
}

func TestServer_RegisterAnswersTheRealFactorysIDNotOneItComputes(t *testing.T) {
	for _, r := range factorytest.RealIDs {
		t.Run(r.Name, func(t *testing.T) {
			rt := &recordingT{}
			fake := factorytest.New(rt)
			fake.ExpectRegister(nil)

			status, body := post(t, fake, r.YAML)

			var answer struct{ ID string }
			if err := json.Unmarshal([]byte(body), &answer); err != nil || status != http.StatusCreated || answer.ID != r.ID {
				t.Errorf("answer %d %s, want 201 with %s", status, body, r.ID)
			}

			if errs := rt.finish(); len(errs) != 0 {
				t.Errorf("errors = %q", errs)
			}
		})
	}
}

func TestServer_SchematicWithoutARealIDFailsTheTestUnlessAssumed(t *testing.T) {
	const zfs = "customization:\n  systemExtensions:\n    officialExtensions: [siderolabs/zfs]\n"

	rt := &recordingT{}
	fake := factorytest.New(rt)
	fake.ExpectRegister(nil)

	if status, _ := post(t, fake, zfs); status == http.StatusCreated {
		t.Errorf("status %d: the fake made up an ID", status)
	}

	if errs := rt.finish(); len(errs) != 1 || !strings.Contains(errs[0], "no ID the real factory computed is known") {
		t.Errorf("errors = %q", errs)
	}

	rt = &recordingT{}
	fake = factorytest.New(rt)
	fake.ExpectRegister(nil)
	fake.Assume(zfs, strings.Repeat("a", 64))

	if _, body := post(t, fake, zfs); !strings.Contains(body, strings.Repeat("a", 64)) {
		t.Errorf("body %s, want the assumed ID", body)
	}

	if errs := rt.finish(); len(errs) != 0 {
		t.Errorf("errors = %q", errs)
	}
}

func TestRealIDs_MatchTheSchematicTestdata(t *testing.T) {
	want := map[string]string{}

	for _, dir := range []string{"vectors", "published"} {
		tsv, err := os.ReadFile(filepath.Join("../../schematic/testdata", dir, "ids.tsv"))
		if err != nil {
			t.Fatal(err)
		}

		for _, line := range strings.Split(strings.TrimSpace(string(tsv)), "\n") {
			file, id, _ := strings.Cut(line, "\t")
			want[dir+"/"+file] = id
		}
	}

	for _, r := range factorytest.RealIDs {
		id, ok := want[r.Name]
		if !ok {
			continue // not from the testdata (the lab's base schematic)
		}

		data, err := os.ReadFile(filepath.Join("../../schematic/testdata", r.Name))
		if err != nil || string(data) != r.YAML || id != r.ID {
			t.Errorf("%s: the table differs from the testdata (%v)", r.Name, err)
		}

		delete(want, r.Name)
	}

	if len(want) > 0 {
		t.Errorf("testdata schematics missing from RealIDs: %v", want)
	}
}

func TestServer_RecordsRequests(t *testing.T) {
	rt := &recordingT{}
	fake := factorytest.New(rt)
	fake.ExpectRegister(nil)

	post(t, fake, "{}")

	reqs := fake.Requests()
	if len(reqs) != 1 || reqs[0].Method != http.MethodPost || reqs[0].Path != "/schematics" ||
		reqs[0].ContentType != "application/yaml" || string(reqs[0].Body) != "{}" {
		t.Errorf("requests = %+v", reqs)
	}

	rt.finish()
}
