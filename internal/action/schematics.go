package action

import (
	"context"
	"encoding/json"

	"github.com/talops/talops/internal/app"
	"github.com/talops/talops/internal/images"
	"github.com/talops/talops/internal/report"
)

// InputRegister asks the schematics action to register every schematic with the factory.
const InputRegister = "register"

func (a *runner) schematics(ctx context.Context) (*result, error) {
	register, err := boolInput(a.gha, InputRegister)
	if err != nil {
		return nil, err
	}

	s, err := app.Schematics(ctx, a.d.App(), app.SchematicsOptions{Dir: a.dir(), Register: register})
	if err != nil {
		return nil, err
	}

	outputs, err := schematicsOutputs(s)
	if err != nil {
		return nil, err
	}

	return &result{log: report.SchematicsText(s), summary: report.SchematicsMarkdown(s), outputs: outputs}, nil
}

// schematicsOutputs are the whole view as JSON, the IDs and installers as JSON objects for
// fromJSON(), and one id-<name> per schematic for workflows that want a plain string.
func schematicsOutputs(s *images.Schematics) (map[string]string, error) {
	installers := map[string]string{}
	for _, n := range s.Nodes {
		installers[n.Name] = n.Installer
	}

	out := map[string]string{}

	for name, v := range map[string]any{"schematics": s, "ids": s.IDs(), "installers": installers} {
		data, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}

		out[name] = string(data)
	}

	for name, id := range s.IDs() {
		out["id-"+name] = id
	}

	return out, nil
}
