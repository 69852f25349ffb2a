package terminal

import (
	"context"
	"errors"

	"github.com/askonce/askonce/client"
	"github.com/askonce/askonce/internal/cli"
)

// open returns a client of the askonce c names (--server), else of the
// embedded engine c.Embed opens, and a function that releases it.
func open(ctx context.Context, c *cli.Conn) (*client.Client, func(), error) {
	if c.Server != "" {
		cl, err := client.New(c.Server, client.WithAPIKey(c.APIKey))
		if err != nil {
			return nil, nil, cli.UsageError{Msg: "--server: " + err.Error()}
		}
		return cl, func() {}, nil
	}
	if c.Embed == nil {
		return nil, nil, errors.New("this program has no embedded engine: give --server")
	}
	h, closeFn, err := c.Embed(ctx, c)
	if err != nil {
		return nil, nil, err
	}
	return client.NewHandler(h), closeFn, nil
}
