package io.rdmaverbs.spring.boot.autoconfigure.metrics;

import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.micrometer.tagged.TaggedCircuitBreakerMetrics;
import io.github.resilience4j.micrometer.tagged.TaggedRetryMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.rdmaverbs.spring.boot.autoconfigure.VerbsAutoConfiguration;
import io.rdmaverbs.spring.boot.autoconfigure.resilience.VerbsCircuitBreakerAutoConfiguration;
import io.rdmaverbs.spring.boot.metrics.VerbsEventMetrics;
import io.rdmaverbs.spring.boot.metrics.VerbsMetrics;
import io.rdmaverbs.spring.boot.resilience.DeviceCircuitBreakers;
import io.rdmaverbs.spring.boot.resilience.TeardownRetries;
import io.rdmaverbs.verbs.Verbs;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Micrometer metrics of the resource graph, and Resilience4j's own metrics of the teardown retry and
 * the device circuit breakers, when a {@link MeterRegistry} is configured (after Spring Boot's metrics
 * auto-configuration, as Boot's own binders are). Only the starter's private registries are bound: an
 * application's resilience4j registries are its own to bind.
 */
@AutoConfiguration(after = { VerbsAutoConfiguration.class, VerbsCircuitBreakerAutoConfiguration.class },
        afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
                "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({ Verbs.class, MeterRegistry.class })
public final class VerbsMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    VerbsMetrics rdmaVerbsMetrics(Verbs verbs) {
        return new VerbsMetrics(verbs);
    }

    @Bean
    @ConditionalOnMissingBean
    VerbsEventMetrics rdmaVerbsEventMetrics(ObjectProvider<MeterRegistry> registry) {
        return new VerbsEventMetrics(registry);
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(TaggedRetryMetrics.class)
    static class RetryMetricsConfiguration {

        @Bean
        @ConditionalOnMissingBean(name = "rdmaVerbsRetryMetrics")
        @ConditionalOnBean(TeardownRetries.class)
        TaggedRetryMetrics rdmaVerbsRetryMetrics(TeardownRetries retries) {
            return TaggedRetryMetrics.ofRetryRegistry(retries.registry());
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({ TaggedCircuitBreakerMetrics.class, CircuitBreakerRegistry.class })
    static class CircuitBreakerMetricsConfiguration {

        @Bean
        @ConditionalOnMissingBean(name = "rdmaVerbsCircuitBreakerMetrics")
        @ConditionalOnBean(DeviceCircuitBreakers.class)
        TaggedCircuitBreakerMetrics rdmaVerbsCircuitBreakerMetrics(DeviceCircuitBreakers breakers) {
            return TaggedCircuitBreakerMetrics.ofCircuitBreakerRegistry(breakers.registry());
        }
    }
}
