// Every file of this target sees TestSupport (Repo, TempDir, Binary, the socket helpers).

@_exported import TestSupport
