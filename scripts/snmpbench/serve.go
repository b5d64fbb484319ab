package main

import (
	"context"
	"fmt"
)

// cmdServe will start the diagagent responder once its API lands.
func cmdServe(ctx context.Context, args []string) error {
	_ = ctx
	return fmt.Errorf("%w: serve: responder not available yet (%d args)", ErrUsage, len(args))
}
