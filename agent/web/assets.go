package web

import "embed"

// assets holds the page: plain HTML, CSS and JavaScript, nothing fetched from elsewhere.
//
//go:embed assets
var assets embed.FS
