package wasmguest

// Option sets what Describe reports about the plugin.
type Option func(*describeInfo)

type describeInfo struct {
	name, version, description string
}

// Name sets the plugin's name as Describe reports it.
func Name(name string) Option { return func(d *describeInfo) { d.name = name } }

// Version sets the plugin's own version (not the API version).
func Version(version string) Option { return func(d *describeInfo) { d.version = version } }

// Description sets a one-line description.
func Description(text string) Option { return func(d *describeInfo) { d.description = text } }
