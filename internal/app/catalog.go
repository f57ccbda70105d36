package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/talops/talops/internal/catalog"
)

// CatalogUpdateOptions say where to read releases from and which data file to refresh.
type CatalogUpdateOptions struct {
	// Factory is the Image Factory to read releases from.
	Factory string
	// File is the data file to refresh; when it does not exist, the embedded data is the start.
	File string
}

// CatalogUpdateResult is what a refresh added.
type CatalogUpdateResult struct {
	// Added are the releases added (none: the file was not written).
	Added []string
	// Total is how many releases the data holds now.
	Total int
}

// CatalogUpdate adds the releases the factory lists and the data lacks, and rewrites the file
// only when something was added. Releases already in the data are never refetched: published
// releases do not change.
func CatalogUpdate(ctx context.Context, d *Deps, opts CatalogUpdateOptions) (*CatalogUpdateResult, error) {
	current, err := readCatalog(d, opts.File)
	if err != nil {
		return nil, err
	}

	if d.ImageFactory == nil {
		return nil, errors.New("catalog update: no Image Factory client")
	}

	client, err := d.ImageFactory(opts.Factory)
	if err != nil {
		return nil, fmt.Errorf("catalog update: %w", err)
	}

	versions, err := client.Versions(ctx)
	if err != nil {
		return nil, fmt.Errorf("catalog update: %w", err)
	}

	updated, added, err := catalog.Update(ctx, current, versions, FactoryFetcher(client))
	if err != nil {
		return nil, err
	}

	out := &CatalogUpdateResult{Added: added, Total: len(updated.Releases())}

	if len(added) == 0 {
		return out, nil
	}

	if err := d.WriteFile(opts.File, updated.Encode(), 0o644); err != nil {
		return nil, fmt.Errorf("write %s: %w", opts.File, err)
	}

	return out, nil
}

func readCatalog(d *Deps, file string) (*catalog.Catalog, error) {
	data, err := d.ReadFile(file)

	switch {
	case errors.Is(err, fs.ErrNotExist):
		data = catalog.EmbeddedJSON()
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", file, err)
	}

	c, err := catalog.Load(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}

	return c, nil
}
