package rules

import (
	"fmt"

	"github.com/talops/talops/internal/finding"
)

const resolverConfig = "ResolverConfig"

// searchDomainsCleared warns of a ResolverConfig whose search domain list is written
// empty: unlike an absent list, which keeps them, it clears the search domains DHCP or
// the platform gives.
func searchDomainsCleared(in *Input) []finding.Finding {
	var out []finding.Finding

	for _, n := range rendered(in) {
		r := n.Config.NetworkResolverConfig()
		if r == nil || !n.Config.Has(resolverConfig) {
			continue
		}

		domains, set := r.SearchDomains().Get()
		if !set || len(domains) > 0 {
			continue
		}

		file, line, inPatch := documentAt(n, resolverConfig, "")
		if !inPatch {
			file, line = place(in.Cluster, n, "")
		}

		for i := len(n.Layers) - 1; i >= 0; i-- {
			ix := n.Layers[i].Index
			if d := lastDoc(ix, resolverConfig, ""); d >= 0 && ix.Docs[d].Has("searchDomains.domains") {
				file = n.Layers[i].File
				line, _ = ix.Docs[d].Nearest("searchDomains.domains")

				break
			}
		}

		out = append(out, finding.Finding{
			Severity: finding.Warning, Code: CodeSearchDomainsCleared, Node: n.Node.Name,
			File: file, Line: line, Path: resolverConfig + ".searchDomains.domains",
			Message: fmt.Sprintf("the ResolverConfig at %s:%d lists no search domain (domains: []), which clears the search domains DHCP or the platform gives: remove domains to keep them, or list the ones the node should use", file, line),
		})
	}

	return out
}
