"""The thread a host tool runs on, kept apart from stdlib.hosttools so that a run that
gives no host tools (`syn exec`) does not load the declaring machinery."""

from _thread import _local    # threading.local itself, without importing threading

# The thread a host tool runs on. A run's VM works in a thread of its own (api: a large
# stack for deep recursion), but the host called Program.call from its thread and gave
# tools that may rely on it: a database connection made there, a contextvar or a
# threading.local set there. So the VM's thread hands each call to the host's, which waits
# for the run and serves them (runtime.threads.HostThread); `post` is set in the VM's thread only.
VM_THREAD = _local()
