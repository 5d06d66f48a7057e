"""etcd: real members to check against (:mod:`kubenotes.etcd.members`), and the model of its Raft.

References
----------
etcd-io/etcd@v3.4 (etcdmain, etcdserver, raft)
"""
