// Every file of this target sees TestSupport (Repo, TempDir, Prerequisite).

@_exported import TestSupport
