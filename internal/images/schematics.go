// Package images computes the installer and boot images of a cluster's nodes, and holds
// the results of putting them in place (in the Image Factory, in Proxmox storage).
package images

import (
	"fmt"
	"maps"
	"slices"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/render"
	"github.com/talops/talops/internal/schematic"
)

// BootArch is the architecture of the boot images shown: talops.yaml has no
// per-node architecture, and the Proxmox labs it targets are amd64.
const BootArch = "amd64"

// Schematics is every schematic of a repository and the images each node boots and
// upgrades from. The JSON tags are a contract for tools and the action's outputs.
type Schematics struct {
	Cluster      string `json:"cluster"`
	TalosVersion string `json:"talosVersion"`
	Platform     string `json:"platform"`
	// Arch is the architecture of the boot images.
	Arch         string      `json:"arch"`
	ImageFactory string      `json:"imageFactory"`
	Schematics   []Schematic `json:"schematics"`
	Nodes        []NodeImage `json:"nodes"`
	// Registered says every schematic was posted to the factory and got the same ID back.
	Registered bool `json:"registered,omitempty"`
}

// Schematic is one schematic talops.yaml names.
type Schematic struct {
	Name       string   `json:"name"`
	File       string   `json:"file"`
	ID         string   `json:"id"`
	Extensions []string `json:"extensions"`
	// Opaque says the file holds only the ID: the extensions are unknown (and empty here),
	// and the schematic is not registered, the factory having it already.
	Opaque bool `json:"opaque,omitempty"`
}

// NodeImage is what one node installs, upgrades and boots from.
type NodeImage struct {
	Name string `json:"name"`
	// Schematic is empty for nodes on the vanilla image.
	Schematic  string `json:"schematic,omitempty"`
	ID         string `json:"id"`
	SecureBoot bool   `json:"secureBoot,omitempty"`
	// Platform is set on a node whose platform is not the cluster's.
	Platform  string `json:"platform,omitempty"`
	Installer string `json:"installer"`
	// ISO and DiskImage are empty where the factory builds no such asset for the platform.
	ISO       string `json:"iso,omitempty"`
	DiskImage string `json:"diskImage,omitempty"`
}

// IDs maps schematic names to their IDs.
func (s *Schematics) IDs() map[string]string {
	out := make(map[string]string, len(s.Schematics))
	for _, sc := range s.Schematics {
		out[sc.Name] = sc.ID
	}

	return out
}

// Of lists every schematic of c with its ID (ids, from render.SchematicIDs) and the
// images each node installs and boots from.
func Of(c *cluster.Cluster, ids map[string]string) (*Schematics, error) {
	out := &Schematics{
		Cluster:      c.Spec.Cluster.Name,
		TalosVersion: schematic.VersionTag(c.Spec.TalosVersion),
		Platform:     c.Platform(),
		Arch:         BootArch,
		ImageFactory: c.ImageFactory(),
		Schematics:   []Schematic{},
		Nodes:        []NodeImage{},
	}

	for _, name := range slices.Sorted(maps.Keys(c.Spec.Schematics)) {
		if render.OpaqueSchematic(c, name) {
			out.Schematics = append(out.Schematics, Schematic{
				Name: name, File: c.Path(c.Spec.Schematics[name].File), ID: ids[name], Extensions: []string{}, Opaque: true,
			})

			continue
		}

		s, err := LoadSchematic(c, name)
		if err != nil {
			return nil, err
		}

		exts := s.Extensions()
		if exts == nil {
			exts = []string{}
		}

		out.Schematics = append(out.Schematics, Schematic{
			Name: name, File: c.Path(c.Spec.Schematics[name].File), ID: ids[name], Extensions: exts,
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

		ni := NodeImage{Name: n.Name, Schematic: n.Schematic, ID: id, SecureBoot: n.SecureBoot, Installer: img}
		if p := c.NodePlatform(n); p != c.Platform() {
			ni.Platform = p
		}

		iso, disk := schematic.BootImageFiles(c.NodePlatform(n), BootArch, n.SecureBoot)
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

// LoadSchematic loads the schematic talops.yaml names name, with errors placed in its file.
func LoadSchematic(c *cluster.Cluster, name string) (*schematic.Schematic, error) {
	rel := c.Spec.Schematics[name].File
	data, _ := c.File(rel)

	s, err := schematic.Load(data)
	if err != nil {
		return nil, render.SchematicError(c.Path(rel), data, err)
	}

	return s, nil
}
