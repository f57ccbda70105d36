package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/factory"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/report"
	"github.com/talops/talops/internal/schematic"
)

// bootArch is the architecture of the boot images shown: talops.yaml has no
// per-node architecture, and the Proxmox labs it targets are amd64.
const bootArch = "amd64"

// SchematicsOptions are schematics' inputs.
type SchematicsOptions struct {
	Deps *Deps

	Dir    string
	Format string
	// Register posts every schematic to the Image Factory and requires the IDs it returns
	// to equal the computed ones. It is the only part that uses the network.
	Register bool
}

func schematicsFlags(d *Deps, args []string) (*SchematicsOptions, error) {
	opts := &SchematicsOptions{Deps: d}

	fs := newFlags(d, "schematics", "schematics [--dir D] [--format text|json|markdown] [--register]")
	fs.StringVar(&opts.Dir, "dir", ".", "repository directory holding talops.yaml")
	fs.StringVar(&opts.Format, "format", report.FormatText, "output format: text, json or markdown")
	fs.BoolVar(&opts.Register, "register", false, "post every schematic to the Image Factory and fail if it gives another ID")

	if err := parseNoArgs(fs, args); err != nil {
		return nil, err
	}

	if err := oneOf("format", opts.Format, report.SchematicFormats); err != nil {
		return nil, err
	}

	return opts, nil
}

func runSchematics(ctx context.Context, d *Deps, args []string) error {
	opts, err := schematicsFlags(d, args)
	if err != nil {
		return err
	}

	s, err := Schematics(ctx, opts)
	if err != nil {
		return err
	}

	return d.view(func(w io.Writer) error { return report.WriteSchematics(w, opts.Format, s) })
}

// Schematics computes every schematic's ID and every node's installer and boot images,
// without secrets or rendering; with Register it also registers the schematics.
func Schematics(ctx context.Context, opts *SchematicsOptions) (*report.Schematics, error) {
	d := opts.Deps

	files, closeDir, err := d.OpenDir(opts.Dir)
	if err != nil {
		return nil, fmt.Errorf("open repository directory %s: %w", opts.Dir, err)
	}
	defer closeDir() //nolint:errcheck // read-only

	c, err := cluster.Load(opts.Dir, files)
	if err != nil {
		return nil, err
	}

	ids, err := render.SchematicIDs(c)
	if err != nil {
		return nil, err
	}

	out, err := schematicsReport(c, ids)
	if err != nil {
		return nil, err
	}

	if opts.Register {
		if err := registerSchematics(ctx, d, c); err != nil {
			return nil, err
		}

		out.Registered = true
	}

	return out, nil
}

func schematicsReport(c *cluster.Cluster, ids map[string]string) (*report.Schematics, error) {
	out := &report.Schematics{
		Cluster:      c.Spec.Cluster.Name,
		TalosVersion: schematic.VersionTag(c.Spec.TalosVersion),
		Platform:     c.Platform(),
		Arch:         bootArch,
		ImageFactory: c.ImageFactory(),
		Schematics:   []report.Schematic{},
		Nodes:        []report.NodeImage{},
	}

	for _, name := range slices.Sorted(maps.Keys(c.Spec.Schematics)) {
		s, err := loadSchematic(c, name)
		if err != nil {
			return nil, err
		}

		exts := s.Extensions()
		if exts == nil {
			exts = []string{}
		}

		out.Schematics = append(out.Schematics, report.Schematic{
			Name: name, File: c.Path(c.Spec.Schematics[name]), ID: ids[name], Extensions: exts,
		})
	}

	installer := render.FactoryInstaller(ids)

	for _, n := range c.Spec.Nodes {
		img, err := installer(c, n)
		if err != nil {
			return nil, fmt.Errorf("installer for node %s: %w", n.Name, err)
		}

		id := schematic.VanillaID
		if n.Schematic != "" {
			id = ids[n.Schematic]
		}

		ni := report.NodeImage{Name: n.Name, Schematic: n.Schematic, ID: id, SecureBoot: n.SecureBoot, Installer: img}

		iso, disk := schematic.BootImageFiles(c.Platform(), bootArch, n.SecureBoot)
		if iso != "" {
			ni.ISO = schematic.BootImageURL(c.ImageFactory(), id, c.Spec.TalosVersion, iso)
		}

		if disk != "" {
			ni.DiskImage = schematic.BootImageURL(c.ImageFactory(), id, c.Spec.TalosVersion, disk)
		}

		out.Nodes = append(out.Nodes, ni)
	}

	return out, nil
}

func loadSchematic(c *cluster.Cluster, name string) (*schematic.Schematic, error) {
	rel := c.Spec.Schematics[name]
	data, _ := c.File(rel)

	s, err := schematic.Load(data)
	if err != nil {
		return nil, render.SchematicError(c.Path(rel), data, err)
	}

	return s, nil
}

// registerSchematics posts every schematic, in name order, to the cluster's factory. A
// factory that gives another ID is an error for that schematic, and the others are
// still tried so that one run names every mismatch; a factory that is down stops the run.
func registerSchematics(ctx context.Context, d *Deps, c *cluster.Cluster) error {
	if d.ImageFactory == nil {
		return errors.New("register schematics: no Image Factory client")
	}

	client, err := d.ImageFactory(c.ImageFactory())
	if err != nil {
		return &cluster.InputError{File: c.Path(cluster.FileName), Line: c.Line("imageFactory"), Field: "imageFactory", Msg: err.Error()}
	}

	var errs []error

	for _, name := range slices.Sorted(maps.Keys(c.Spec.Schematics)) {
		s, err := loadSchematic(c, name)
		if err != nil {
			return err
		}

		if _, err := client.RegisterVerified(ctx, s); err != nil {
			err = fmt.Errorf("register schematic %s (%s) with %s: %w", name, c.Path(c.Spec.Schematics[name]), client.BaseURL(), err)

			var down *factory.UnavailableError
			if errors.As(err, &down) || ctx.Err() != nil {
				return err
			}

			errs = append(errs, err)
		}
	}

	return errors.Join(errs...)
}
