package testlab_test

import (
	"net/netip"
	"regexp"
	"testing"

	"github.com/talops/talops/internal/testlab"
)

// TestScaled_EveryAddressIsAnIPAddressOfItsOwn: at every size the benchmarks use, each node's
// address is an IP address (one past .255 would be read as a host name, and validated and
// rendered as one) and no two are the same.
func TestScaled_EveryAddressIsAnIPAddressOfItsOwn(t *testing.T) {
	t.Parallel()

	addresses := regexp.MustCompile(`(?m)^    address: (.*)$`)

	for _, n := range []int{50, 5000} {
		files := testlab.Scaled(t, n)
		found := addresses.FindAllStringSubmatch(string(files["talops.yaml"]), -1)

		if len(found) != n {
			t.Fatalf("%d nodes: %d addresses", n, len(found))
		}

		seen := map[netip.Addr]bool{}

		for _, m := range found {
			a, err := netip.ParseAddr(m[1])
			if err != nil || seen[a] {
				t.Fatalf("%d nodes: address %q is no IP address, or a second time", n, m[1])
			}

			seen[a] = true
		}
	}
}
