// replaced by the manifest loader
