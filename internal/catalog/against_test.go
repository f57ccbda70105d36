package catalog_test

import (
	"reflect"
	"testing"

	"github.com/talops/talops/internal/catalog"
)

// A listing of v1.14.6, whose release notes give the LTS driver 580.196.07 and the
// production one 595.112.07 (facts read, not derived).
func listed(t *testing.T, lts, production string) catalog.Release {
	t.Helper()

	c, err := catalog.Load([]byte(`{"talos": {"v1.14.6": {
		"nvidia-open-gpu-kernel-modules-lts": "` + lts + `-v1.14.6",
		"nvidia-container-toolkit-lts": "` + lts + `-v1.19.1",
		"nvidia-open-gpu-kernel-modules-production": "` + production + `-v1.14.6"}}}`))
	if err != nil {
		t.Fatal(err)
	}

	r, ok := c.Release("v1.14.6")
	if !ok {
		t.Fatal("no v1.14.6")
	}

	return r
}

func TestAgainst_VerifiedFactsWinOverTheFactorysDriver(t *testing.T) {
	t.Parallel()

	r, contradictions := listed(t, "999.99.99", "595.112.07").Against(catalog.EmbeddedFacts())

	want := []catalog.Contradiction{{Flavour: "lts", Listed: "999.99.99", Facts: "580.196.07"}}
	if !reflect.DeepEqual(contradictions, want) {
		t.Errorf("contradictions %+v, want %+v", contradictions, want)
	}

	if d, toolkit, _ := r.NvidiaDriver("lts"); d != "580.196.07" || toolkit != "v1.19.1" {
		t.Errorf("lts driver %s, toolkit %s; want the facts' 580.196.07 with the listed toolkit", d, toolkit)
	}

	if d, _, _ := r.NvidiaDriver("production"); d != "595.112.07" {
		t.Errorf("production driver %s, want 595.112.07", d)
	}
}

func TestAgainst_AListingThatAgreesIsKeptAsItIs(t *testing.T) {
	t.Parallel()

	in := listed(t, "580.196.07", "595.112.07")

	out, contradictions := in.Against(catalog.EmbeddedFacts())
	if contradictions != nil || !reflect.DeepEqual(out.Extensions(), in.Extensions()) {
		t.Errorf("contradictions %+v, extensions %v", contradictions, out.Extensions())
	}
}
