package version

// Release is the version of this source tree, in Semantic Versioning 2.0:
// the release it is, or, between releases, the next one with the
// prerelease suffix -dev. Every copy of the source knows it: a clone, a
// tarball, `go install`. The Makefile reads it from this line, a tag
// v<Release> only confirms it, and TestChangelogHoldsRelease keeps the
// CHANGELOG's newest section in step (RELEASE.md says how a release is cut).
const Release = "1.1.0-dev"
