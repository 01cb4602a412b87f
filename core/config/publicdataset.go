package config

// validatePublicDataset checks --public-dataset against the other dataset
// sources (its name is checked against the registry with the other plugin
// flags): AIPerf's dataset is public, a file, or synthetic, never two.
func (c *RunConfig) validatePublicDataset(add adder) {
	if c.PublicDataset == "" {
		if c.HFSubset != "" {
			add("--hf-subset %s requires --public-dataset", c.HFSubset)
		}
		return
	}
	if c.InputFile != "" {
		add("--public-dataset and --input-file cannot be used together: the dataset is either public or a file")
	}
	if c.CustomDatasetType != "" {
		add("--public-dataset and --custom-dataset-type cannot be used together: --custom-dataset-type names the format of an --input-file")
	}
}

// PublicDatasetSettings returns what the run's flags set on the selected
// public_dataset_loader plugin, by its json keys: hf_subset (--hf-subset)
// and max_conversations, the cap AIPerf puts on streamed datasets
// (_max_conversations: the request count when the run has one, else the
// entry count the user gave; no cap for a duration or session-count run
// without one). Empty without --public-dataset.
func (c *RunConfig) PublicDatasetSettings() map[string]any {
	if c.PublicDataset == "" {
		return nil
	}
	m := map[string]any{}
	if c.HFSubset != "" {
		m["hf_subset"] = c.HFSubset
	}
	switch n := c.EffectiveRequestCount(); {
	case n > 0:
		m["max_conversations"] = n
	case c.NumDatasetEntriesSet || c.NumSessions != nil:
		m["max_conversations"] = c.EffectiveNumDatasetEntries()
	}
	return m
}

// publicDatasetSection is datasets[0] of a public dataset run, as AIPerf
// 0.13's converter writes it: type public, the dataset's name, and the
// entries, seed, sampling, subset and output length a flag set.
func (c *RunConfig) publicDatasetSection() map[string]any {
	d := map[string]any{"name": "main", "type": "public", "dataset": c.PublicDataset}
	if c.NumDatasetEntriesSet || c.NumSessions != nil || c.RequestCount != nil {
		d["entries"] = c.EffectiveNumDatasetEntries()
	}
	if c.RandomSeed != nil {
		d["random_seed"] = *c.RandomSeed
	}
	if c.DatasetSamplingStrategy != "" {
		d["sampling"] = c.DatasetSamplingStrategy
	}
	if c.HFSubset != "" {
		d["hf_subset"] = c.HFSubset
	}
	if osl := c.oslSection(); osl != nil {
		d["osl"] = osl
	}
	return d
}
