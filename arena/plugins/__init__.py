"""The plugin system: the hook specifications, the plugin manager (discovery through
the `xent_arena` entry points), the entry types plugins return and the registry that
indexes them. Plugins themselves import only the façade `arena`."""
