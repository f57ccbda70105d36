package talhelper

import (
	"cmp"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v4"

	"github.com/talops/talops/internal/cluster"
	"github.com/talops/talops/internal/finding"
	"github.com/talops/talops/internal/importer"
	"github.com/talops/talops/internal/schematic"
)

// SchematicFile is a file that may hold the schematic of a talosImageURL's installer.
type SchematicFile struct {
	// File is its path as findings name it; Data its contents.
	File string
	Data []byte
}

// maxScanned bounds how many files beside the talconfig are read in search of schematics.
const maxScanned = 32

// talhelperSchematicNames are the names talhelper's documentation gives the schematic
// file `talhelper genurl` reads: looked at first.
var talhelperSchematicNames = []string{"schematic.yaml", "schematic.yml"}

// imageSchematic is a schematic file that parsed, by its ID.
type imageSchematic struct {
	file SchematicFile
	id   string
	// name is the schematic's name in talops ("" until a node uses it).
	name string
	// named says it was given on the command line or has talhelper's name for it: one
	// that matches no URL is a warning, another file beside the talconfig a note.
	named bool
	// recovered says it came from the Image Factory, no file having it.
	recovered bool
	// opaque says only the ID is known: no file had it and the factory did not give it
	// (why says which); its file holds the ID alone.
	opaque bool
	why    string
}

// imageURLs is what the import knows about the talosImageURL installers' schematics.
type imageURLs struct {
	// byID are the schematic files found, by ID, in the order they were found.
	byID  map[string]*imageSchematic
	order []*imageSchematic
	// urls are the factory installer IDs the talconfig names, with the nodes naming each.
	urls  map[string][]string
	urlID []string
	// unrecovered are the IDs the factory was asked for and did not give, with why.
	unrecovered map[string]error
}

// findImageSchematics reads the schematic files that may match the talconfig's
// talosImageURL installers: those named on the command line, then talhelper's
// schematic.yaml, then (while an ID is still unmatched) the other YAML files beside the
// talconfig; last, for an ID no file has, the Image Factory (Input.Recover). A named file
// that is not a schematic is an error; another is skipped.
func (im *mapping) findImageSchematics(nodes *yaml.Node, roles map[bool]*yaml.Node) error {
	u := &imageURLs{byID: map[string]*imageSchematic{}, urls: map[string][]string{}, unrecovered: map[string]error{}}
	im.images = u

	if err := im.findFileSchematics(nodes, roles); err != nil {
		return err
	}

	im.recoverSchematics()

	return nil
}

// recoverSchematics asks the Image Factory for the schematic of each ID no file has.
func (im *mapping) recoverSchematics() {
	u := im.images
	if im.in.Recover == nil {
		return
	}

	for _, id := range u.urlID {
		if _, ok := u.byID[id]; ok || id == schematic.VanillaID {
			continue
		}

		s, err := im.in.Recover(cmp.Or(im.factory, cluster.DefaultImageFactory), id)
		if err != nil {
			u.unrecovered[id] = err

			continue
		}

		data, err := s.Marshal()
		if err != nil {
			u.unrecovered[id] = err

			continue
		}

		u.add(SchematicFile{File: "the Image Factory (GET /schematics/" + id + ")", Data: data}, s, true)

		if is, ok := u.byID[id]; ok {
			is.recovered = true
		}
	}
}

// nodeURLs notes the schematic ID of each node's talosImageURL, with the nodes that use it.
func (im *mapping) nodeURLs(nodes *yaml.Node, roles map[bool]*yaml.Node) {
	if nodes == nil {
		return
	}

	u := im.images

	for _, n := range nodes.Content {
		n = deref(n)
		eff := effective(n, roles[boolean(get(n, "controlPlane"))])

		ref, err := schematic.ParseInstallerImage(scalar(get(eff, "talosImageURL")))
		if err != nil || ref.ID == "" {
			continue
		}

		if _, ok := u.urls[ref.ID]; !ok {
			u.urlID = append(u.urlID, ref.ID)
		}

		u.urls[ref.ID] = append(u.urls[ref.ID], scalar(get(n, "hostname")))
	}
}

// findFileSchematics reads the schematic files that may match the installers.
func (im *mapping) findFileSchematics(nodes *yaml.Node, roles map[bool]*yaml.Node) error {
	u := im.images
	im.nodeURLs(nodes, roles)

	for _, f := range im.in.Schematics {
		s, err := schematic.Load(f.Data)
		if err != nil {
			return &cluster.InputError{File: f.File, Msg: "not an Image Factory schematic: " + importer.OneLine(err)}
		}

		u.add(f, s, true)
	}

	if len(u.urlID) == 0 || im.in.ReadPatch == nil {
		return nil
	}

	var tried []string

	try := func(rel string) {
		tried = append(tried, rel)

		data, err := im.in.ReadPatch(rel)
		if err != nil {
			return
		}

		if s, err := schematic.Load(data); err == nil {
			u.add(SchematicFile{File: path.Join(path.Dir(im.in.File), rel), Data: data}, s, slices.Contains(talhelperSchematicNames, rel))
		}
	}

	for _, name := range talhelperSchematicNames {
		try(name)
	}

	if u.matchedAll() || im.in.ListDir == nil {
		return nil
	}

	files, err := im.in.ListDir()
	if err != nil {
		return nil //nolint:nilerr // the scan is a convenience: without it the URLs stay unmatched, and say so
	}

	slices.Sort(files)

	scanned := 0

	for _, rel := range files {
		if scanned == maxScanned || u.matchedAll() {
			break
		}

		if strings.Contains(rel, "/") || (!strings.HasSuffix(rel, ".yaml") && !strings.HasSuffix(rel, ".yml")) ||
			slices.Contains(tried, rel) || rel == path.Base(im.in.File) {
			continue
		}

		scanned++

		try(rel)
	}

	return nil
}

func (u *imageURLs) add(f SchematicFile, s *schematic.Schematic, named bool) {
	id, err := s.ID()
	if err != nil {
		return
	}

	if _, dup := u.byID[id]; dup {
		return
	}

	is := &imageSchematic{file: f, id: id, named: named}
	u.byID[id] = is
	u.order = append(u.order, is)
}

func (u *imageURLs) matchedAll() bool {
	for _, id := range u.urlID {
		if _, ok := u.byID[id]; !ok {
			return false
		}
	}

	return true
}

var nonName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-z0-9.-]+`) })

// imageURLSchematic ties a node's talosImageURL to the schematic file of its ID, if one was
// found, and returns the schematic's name; otherwise it says why the node names none. own
// says talops names the node's installer itself, so that it follows talosVersion: the URL is
// the installer talops would name for the schematic (talOpsInstaller). Otherwise the node's
// patch keeps the URL, so the render stays talhelper's.
func (im *mapping) imageURLSchematic(n *yaml.Node, node string, flavour cluster.Node, field func(string) string) (name string, own bool) {
	url := scalar(get(n, "talosImageURL"))
	line := lineOf(n, "talosImageURL")

	ref, err := schematic.ParseInstallerImage(url)
	if err != nil || ref.ID == "" {
		im.repo.Mapped(finding.Warning, line, node, field("talosImageURL"),
			"not an Image Factory installer, so talops cannot tie it to a schematic: the node keeps it in a patch (talops validate says whether it is the installer the node needs)")

		return "", false
	}

	installer, own := im.talopsInstaller(ref, flavour)

	if ref.ID == schematic.VanillaID {
		if !own {
			im.repo.Mapped(finding.Info, line, node, field("talosImageURL"),
				"the image has no extensions (the vanilla schematic): the node needs no schematic; its patch keeps talhelper's installer URL")
		}

		// Otherwise nothing changes form: talops names the URL's installer, which follows
		// talosVersion.
		return "", own
	}

	is, ok := im.images.byID[ref.ID]
	if !ok || is.opaque {
		return im.opaqueSchematic(ref, line, node, field("talosImageURL"), installer, own)
	}

	if is.name == "" {
		name := im.schematicName(is.file.File)

		header := fmt.Sprintf("# The Image Factory schematic of talosImageURL's installer (ID %s), from %s.\n", is.id, path.Base(is.file.File))
		if is.recovered {
			name, header = importer.RecoveredName(is.id), importer.RecoveredHeader(is.id)
		}

		if err := im.repo.AddSchematic(name, append([]byte(header), is.file.Data...)); err != nil {
			im.repo.Unsupported(line, node, field("talosImageURL"), err.Error())

			return "", false
		}

		is.name = name
	}

	msg := fmt.Sprintf("%s has this image's schematic ID: the node's schematic is %s; its patch keeps talhelper's installer URL, so the render is talhelper's",
		is.file.File, is.name)
	if own {
		msg = fmt.Sprintf("%s has this image's schematic ID: the node's schematic is %s, and talops names its installer, %s: it follows talosVersion",
			is.file.File, is.name, installer)
	}

	im.repo.Mapped(finding.Info, line, node, field("talosImageURL"), msg)

	return is.name, own
}

// opaqueSchematic makes an installer ID no file had, nor the factory gave, an opaque
// schematic (a file holding only the ID, written once per ID) and the node's schematic:
// talops then names the installer itself, so the node follows talosVersion, where keeping
// the URL in a patch would fail validate (installer.mismatch) until the file was found.
func (im *mapping) opaqueSchematic(ref schematic.InstallerRef, line int, node, field, installer string, own bool) (string, bool) {
	u := im.images
	factory := cmp.Or(im.factory, cluster.DefaultImageFactory)

	is, ok := u.byID[ref.ID]
	if !ok {
		why := "import ran --offline, so the Image Factory was not asked for it"
		if err, asked := u.unrecovered[ref.ID]; asked {
			why = "the Image Factory did not give it: " + importer.OneLine(err)
		}

		is = &imageSchematic{id: ref.ID, name: importer.RecoveredName(ref.ID), opaque: true, why: why}
		if err := im.repo.AddSchematic(is.name, importer.OpaqueSchematic(factory, ref.ID, why)); err != nil {
			im.repo.Unsupported(line, node, field, err.Error())

			return "", false
		}

		u.byID[ref.ID] = is
	}

	then := "its patch keeps talhelper's installer URL, so the render is talhelper's"
	if own {
		then = "talops names its installer, " + installer + ": it follows talosVersion"
	}

	im.repo.Mapped(finding.Warning, line, node, field, fmt.Sprintf(
		"talops has no schematic file for this image (no file beside the talconfig, nor one given with --schematic, has its ID; %s): %s holds only the ID (an opaque schematic) and is the node's schematic, %s; talops cannot check its extensions until the file is filled in with what the factory gives for GET %s/schematics/%s (or the import runs online)",
		is.why, importer.SchematicPath(is.name), then, factory, ref.ID))

	return is.name, own
}

// talopsInstaller is the installer talops names for the URL's schematic on this node (of
// flavour's platform and secureBoot, in the repository talops.yaml names for it:
// chooseInstallerNames), and whether it is the URL's image under the URL's name. Then
// talops.yaml carries the installer (talosVersion, the schematic, the installer's
// repository), and a bump of talosVersion moves it as it moves every other node's.
func (im *mapping) talopsInstaller(ref schematic.InstallerRef, flavour cluster.Node) (string, bool) {
	repo := im.installerRepository(ref.ID, flavour)
	installer := schematic.Installer(cmp.Or(im.factory, cluster.DefaultImageFactory), repo, ref.ID, im.talosVersion, flavour.SecureBoot)
	kept, ok := im.keptRepository(ref, flavour.Platform, flavour.SecureBoot)

	return installer, ok && kept == repo
}

// schematicName names a schematic after its file, as talops names allow, and apart from
// the schematics already named.
func (im *mapping) schematicName(file string) string {
	base := strings.TrimSuffix(path.Base(file), path.Ext(file))
	name := strings.Trim(nonName().ReplaceAllString(strings.ToLower(base), "-"), ".-")

	if name == "" {
		name = "image"
	}

	for i, n := 2, name; ; i++ {
		if !im.repo.HasSchematic(n) {
			return n
		}

		n = fmt.Sprintf("%s-%d", name, i)
	}
}

// imageDrift reports the schematic files found that match no talosImageURL: they have
// drifted from the images the nodes install (or name none), and are not used.
func (im *mapping) imageDrift() {
	u := im.images
	if u == nil {
		return
	}

	var urls []string

	for _, id := range u.urlID {
		urls = append(urls, fmt.Sprintf("%s (%s)", id, strings.Join(u.urls[id], ", ")))
	}

	for _, is := range u.order {
		if is.name != "" {
			continue
		}

		msg := fmt.Sprintf("this schematic's ID is %s, but no talosImageURL names a factory installer: it is not imported", is.id)
		if len(urls) > 0 {
			msg = fmt.Sprintf("this schematic's ID is %s, but the talosImageURL installers are of %s: the file has drifted from the image the nodes install (an extension added or removed on one side only); it is not imported: make them agree (talops schematic id FILE prints a file's ID)",
				is.id, strings.Join(urls, "; "))
		}

		sev := finding.Warning
		if !is.named {
			// Another schematic beside the talconfig may be one for nodes to come.
			sev = finding.Info
		}

		im.repo.Report(finding.Finding{Severity: sev, Code: CodeMapped, File: is.file.File, Message: msg})
	}
}
