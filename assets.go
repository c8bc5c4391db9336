package main

import "io/fs"

// frontendFS is the built frontend with the frontend/dist prefix removed.
func frontendFS() fs.FS {
	sub, err := fs.Sub(assets, "frontend/dist")
	if err != nil {
		panic(err) // the prefix is a constant: this cannot fail
	}
	return sub
}
