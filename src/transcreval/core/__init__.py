"""The ground floor: the Metric base, its states, sync, results, options, registry."""
