package talhelper

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	yaml3 "go.yaml.in/yaml/v3"
)

// substituteFile does to an @file's contents what talhelper does unless skipEnvsubst: it
// reads them as YAML documents with its parser (yaml.v3), writes them back without their
// comments (indented by two) and runs its envsubst over that text. Contents that are no YAML
// make talhelper fail, and so does a variable its envsubst refuses; each is an error here.
func (im *mapping) substituteFile(rel string, data []byte) (string, error) {
	stripped, err := stripComments(data)
	if err != nil {
		return "", fmt.Errorf("%s is read as YAML by talhelper before it substitutes variables, and is not YAML (set skipEnvsubst: true to take it as it is)", rel)
	}

	lookup := im.lookup()

	res := substitute(string(stripped), lookup)
	if res.invalid {
		return "", fmt.Errorf("%s has a ${ its line does not close, which talhelper's envsubst cannot read", rel)
	}

	if len(res.failed) > 0 {
		return "", fmt.Errorf("%s uses %s, which talhelper refuses to run without (unset or empty)", rel, names(res.failed))
	}

	for _, name := range res.used {
		im.substituted(rel, 0, name)
	}

	return res.out, nil
}

// stripComments re-encodes YAML documents without their comments, as talhelper does before
// it substitutes a file.
func stripComments(data []byte) ([]byte, error) {
	dec := yaml3.NewDecoder(bytes.NewReader(data))

	var out bytes.Buffer

	enc := yaml3.NewEncoder(&out)
	enc.SetIndent(2)

	for {
		var doc yaml3.Node

		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}

		if err != nil {
			return nil, err
		}

		dropComments(&doc)

		if err := enc.Encode(&doc); err != nil {
			return nil, err
		}
	}

	if err := enc.Close(); err != nil {
		return nil, err
	}

	return out.Bytes(), nil
}

func dropComments(n *yaml3.Node) {
	n.HeadComment, n.LineComment, n.FootComment = "", "", ""

	for _, c := range n.Content {
		dropComments(c)
	}
}

// names lists variables as ${A}, ${B}.
func names(vars []string) string {
	out := make([]string, 0, len(vars))
	for _, v := range vars {
		out = append(out, "${"+v+"}")
	}

	return strings.Join(out, ", ")
}
