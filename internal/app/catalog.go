package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/talops/talops/internal/catalog"
)

// CatalogUpdateOptions say where to read releases from and which data file to refresh.
type CatalogUpdateOptions struct {
	// Factory is the Image Factory to read releases from.
	Factory string
	// File is the data file to refresh; when it does not exist, the embedded data is the start.
	File string
	// Facts is the release facts file whose checked date the refresh sets to today ("" or a
	// file that does not exist: none).
	Facts string
}

// CatalogUpdateResult is what a refresh added.
type CatalogUpdateResult struct {
	// Added are the releases added (none: the file was not written).
	Added []string
	// Total is how many releases the data holds now.
	Total int
	// PreReleases are the added releases that are alpha, beta or rc: kept while their
	// release is not out.
	PreReleases []string
	// Skipped are the pre-releases the factory lists whose release is out, and that the
	// data does not hold: not added (see catalog.SplitPreReleases).
	Skipped []string
	// Checked is the day the facts file now says it was checked ("" when none was given).
	Checked string
}

// CatalogUpdate adds the releases the factory lists and the data lacks, and rewrites the file
// only when something was added. Pre-releases are added while their release is not out, and
// skipped after. Releases already in the data are never refetched: published
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

	keep, superseded := catalog.SplitPreReleases(versions)

	updated, added, err := catalog.Update(ctx, current, keep, FactoryFetcher(client))
	if err != nil {
		return nil, err
	}

	out := &CatalogUpdateResult{Added: added, Total: len(updated.Releases())}

	for _, tag := range added {
		if catalog.IsPreRelease(tag) {
			out.PreReleases = append(out.PreReleases, tag)
		}
	}

	for _, tag := range superseded {
		if _, held := current.Release(tag); !held {
			out.Skipped = append(out.Skipped, tag)
		}
	}

	if out.Checked, err = markChecked(d, opts.Facts); err != nil {
		return nil, err
	}

	if len(added) == 0 {
		return out, nil
	}

	if err := d.WriteFile(opts.File, updated.Encode(), 0o644); err != nil {
		return nil, fmt.Errorf("write %s: %w", opts.File, err)
	}

	return out, nil
}

// markChecked sets the facts file's checked date to today: the factory was just read, and
// the release workflow refuses data checked more than 14 days ago.
func markChecked(d *Deps, file string) (string, error) {
	if file == "" || d.Now == nil {
		return "", nil
	}

	data, err := d.ReadFile(file)

	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", nil
	case err != nil:
		return "", fmt.Errorf("read %s: %w", file, err)
	}

	today := d.Now().UTC()

	marked, err := catalog.SetChecked(data, today)
	if err != nil {
		return "", fmt.Errorf("%s: %w", file, err)
	}

	if err := d.WriteFile(file, marked, 0o644); err != nil {
		return "", fmt.Errorf("write %s: %w", file, err)
	}

	return today.Format(time.DateOnly), nil
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
