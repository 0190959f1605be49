// replaced by the FASTA reader
