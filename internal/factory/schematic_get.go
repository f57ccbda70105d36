package factory

import (
	"context"
	"fmt"
	"net/http"

	"github.com/talops/talops/internal/schematic"
)

// Schematic asks the factory for the schematic of an ID it has registered (GET
// /schematics/{id}, answered with the schematic's YAML) and returns it once its own ID is
// id (*IDMismatchError otherwise): the one way to know what an installer holds when only
// its ID is written down. An ID the factory does not know is a *StatusError of 404.
func (c *Client) Schematic(ctx context.Context, id string) (*schematic.Schematic, error) {
	const op = "get schematic"

	if !isID(id) {
		return nil, fmt.Errorf("%s: %q is no schematic ID", op, id)
	}

	body, err := c.do(ctx, request{op: op, method: http.MethodGet, path: "/schematics/" + id})
	if err != nil {
		return nil, err
	}

	s, err := schematic.Load(body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: the factory's answer is no schematic: %w", op, id, err)
	}

	local, err := s.ID()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", op, id, err)
	}

	return s, CheckID(local, id)
}
