package importtest_test

import (
	"slices"
	"testing"

	"github.com/talops/talops/internal/importer/importtest"
)

const base = `version: v1alpha1
machine:
    type: worker
    token: t0ken.abcdefghijklmnop
    sysctls:
        a: "1"
        b: "2"
cluster:
    controlPlane:
        endpoint: https://10.0.0.1:6443
---
apiVersion: v1alpha1
kind: HostnameConfig
hostname: n1
auto: "off"
`

func TestCompare_SameDocumentsInAnotherOrderAreIdentical(t *testing.T) {
	reordered := `apiVersion: v1alpha1
kind: HostnameConfig
auto: "off"
hostname: n1
---
# a comment
cluster:
    controlPlane:
        endpoint: https://10.0.0.1:6443
version: v1alpha1
machine:
    sysctls:
        b: "2"
        a: "1"
    token: t0ken.abcdefghijklmnop
    type: worker
`

	diffs, err := importtest.Compare([]byte(base), []byte(reordered))
	if err != nil {
		t.Fatal(err)
	}

	if len(diffs) != 0 {
		t.Fatalf("want no differences, got %q", diffs)
	}
}

func TestCompare_AFieldThatDiffersIsNamedByItsPath(t *testing.T) {
	changed := slices.Concat([]byte(base[:len(base)-len("auto: \"off\"\n")]), []byte("auto: stable\n"))

	diffs, err := importtest.Compare([]byte(base), changed)
	if err != nil {
		t.Fatal(err)
	}

	if want := []string{"HostnameConfig: differs at line 3 (auto)"}; !slices.Equal(diffs, want) {
		t.Fatalf("want %q, got %q", want, diffs)
	}
}

func TestCompare_AMissingDocumentIsReported(t *testing.T) {
	v1 := base[:len(base)-len("---\napiVersion: v1alpha1\nkind: HostnameConfig\nhostname: n1\nauto: \"off\"\n")]

	diffs, err := importtest.Compare([]byte(base), []byte(v1))
	if err != nil {
		t.Fatal(err)
	}

	if want := []string{"HostnameConfig: missing"}; !slices.Equal(diffs, want) {
		t.Fatalf("want %q, got %q", want, diffs)
	}
}
