/**
 * Micrometer metrics for Clockwork's caches: {@link dev.clockwork.metrics.ClockworkCacheMetrics}
 * binds a cache's counters and off-heap figures to a {@code MeterRegistry}. Optional: the caches
 * depend on no metrics library, and this module is their only tie to one.
 */
module dev.clockwork.metrics {
    requires transitive dev.clockwork.offheap;
    // Automatic module (Automatic-Module-Name of micrometer-core); transitive because
    // ClockworkCacheMetrics extends its CacheMeterBinder and takes its MeterRegistry and Tags.
    requires transitive micrometer.core;

    exports dev.clockwork.metrics;
}
