package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/talops/talops/internal/catalog"
	"github.com/talops/talops/internal/cluster"
)

// DefaultCatalogFile is the embedded release data, relative to the talops repository root.
const DefaultCatalogFile = "internal/catalog/data/extensions.json"

// CatalogUpdateOptions are catalog update's inputs.
type CatalogUpdateOptions struct {
	Deps *Deps

	// Factory is the Image Factory to read releases from.
	Factory string
	// File is the data file to refresh; when it does not exist, the embedded data is the start.
	File string
}

func runCatalog(ctx context.Context, d *Deps, args []string) error {
	if len(args) == 0 || args[0] != "update" {
		return &UsageError{Msg: "usage: talops catalog update [--factory URL] [--file PATH]"}
	}

	opts := &CatalogUpdateOptions{Deps: d}

	fs := newFlags(d, "catalog update", "catalog update [--factory URL] [--file PATH]")
	fs.StringVar(&opts.Factory, "factory", cluster.DefaultImageFactory, "Image Factory to read Talos releases and their extensions from")
	fs.StringVar(&opts.File, "file", DefaultCatalogFile, "release data file to refresh (run from the talops repository root)")

	if err := parseNoArgs(fs, args[1:]); err != nil {
		return err
	}

	return CatalogUpdate(ctx, opts)
}

// CatalogUpdate adds the releases the factory lists and the data lacks, and rewrites the file
// only when something was added. Releases already in the data are never refetched: published
// releases do not change.
func CatalogUpdate(ctx context.Context, opts *CatalogUpdateOptions) error {
	d := opts.Deps

	current, err := readCatalog(d, opts.File)
	if err != nil {
		return err
	}

	if d.ImageFactory == nil {
		return errors.New("catalog update: no Image Factory client")
	}

	client, err := d.ImageFactory(opts.Factory)
	if err != nil {
		return fmt.Errorf("catalog update: %w", err)
	}

	versions, err := client.Versions(ctx)
	if err != nil {
		return fmt.Errorf("catalog update: %w", err)
	}

	updated, added, err := catalog.Update(ctx, current, versions, factoryFetcher(client))
	if err != nil {
		return err
	}

	total := len(updated.Releases())

	if len(added) == 0 {
		return d.out(fmt.Sprintf("%s is up to date (%d releases)\n", opts.File, total))
	}

	if err := d.WriteFile(opts.File, updated.Encode(), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", opts.File, err)
	}

	return d.out(fmt.Sprintf("added %s to %s (%d releases)\n", strings.Join(added, ", "), opts.File, total))
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
