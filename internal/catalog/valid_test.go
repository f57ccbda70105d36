package catalog_test

import (
	"testing"

	"github.com/talops/talops/internal/catalog"
)

func TestValidVersion_AcceptsWhatTalopsYAMLMayWrite(t *testing.T) {
	for v, want := range map[string]bool{
		"v1.14": true, "v1.14.1": true, "1.14.0-rc.1": true, "v1.36.4+k3s1": true,
		"latest": false, "v1": false, "v1.14.1.2": false, "": false, "vv1.14": false,
	} {
		if got := catalog.ValidVersion(v); got != want {
			t.Errorf("ValidVersion(%q) = %v, want %v", v, got, want)
		}
	}
}
