"""Glue between fastmsgpack and the systems that carry its bytes: kombu and Celery, Dask
distributed, and Redis-backed caches (django-redis, aiocache, dogpile.cache).

Each submodule imports its framework only when it needs it, and fastmsgpack depends on none of
them: install the matching extra (``fastmsgpack[celery]``, ``fastmsgpack[dask]``, ...).
See doc/integrations.md.
"""
