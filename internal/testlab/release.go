package testlab

import (
	"context"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/catalog"
	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/rules"
)

// Offline is the release data talops judges c against with no network and no release
// cache, as `--offline` gives it: the embedded data, and a release it lacks derived from its
// minor; the lookup says so. Tests of the core give it to rules.Input as the app does.
func Offline(c *cluster.Cluster) (*catalog.Catalog, rules.ReleaseLookup) {
	return app.ReleaseCatalog(context.Background(), &app.Deps{}, c, true)
}
