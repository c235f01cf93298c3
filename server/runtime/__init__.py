"""The worker process itself: collector tuning, heap trimming, the stall monitor and the offload
thread pool."""
