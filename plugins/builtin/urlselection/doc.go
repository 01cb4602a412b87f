// Package urlselection holds the built-in url_selection_strategy plugins
// (--url-strategy): which of several --url values a session is sent to.
// One file per plugin.
package urlselection
