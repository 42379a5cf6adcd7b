package io.rdmaverbs.spring.boot.autoconfigure.health;

import java.util.Optional;

import io.rdmaverbs.spring.boot.autoconfigure.VerbsAutoConfiguration;
import io.rdmaverbs.spring.boot.autoconfigure.VerbsProperties;
import io.rdmaverbs.spring.boot.autoconfigure.events.DeviceFaults;
import io.rdmaverbs.spring.boot.autoconfigure.events.VerbsAsyncEventsAutoConfiguration;
import io.rdmaverbs.spring.boot.autoconfigure.resilience.DeviceCircuitBreakers;
import io.rdmaverbs.spring.boot.autoconfigure.resilience.VerbsCircuitBreakerAutoConfiguration;
import io.rdmaverbs.verbs.AsyncEvent;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.Verbs;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.context.annotation.Bean;

/**
 * The {@code rdmaVerbs} health contributor, when spring-boot-health is present. Switched off by
 * {@code management.health.rdmaVerbs.enabled=false}.
 */
@AutoConfiguration(after = { VerbsAutoConfiguration.class, VerbsAsyncEventsAutoConfiguration.class,
        VerbsCircuitBreakerAutoConfiguration.class })
@ConditionalOnClass(HealthContributor.class)
@ConditionalOnBean(Verbs.class)
@ConditionalOnEnabledHealthIndicator("rdmaVerbs")
public final class VerbsHealthContributorAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "rdmaVerbsHealthContributor")
    VerbsHealthContributor rdmaVerbsHealthContributor(Verbs verbs, VerbsProperties properties,
            ObjectProvider<DeviceFaults> faults, ObjectProvider<DeviceCircuitBreakers> breakers) {
        return new VerbsHealthContributor(verbs, properties, new DeviceHealthIndicator.DeviceState() {

            @Override
            public Optional<AsyncEvent> fatalEvent(DeviceContext context) {
                DeviceFaults f = faults.getIfAvailable();
                return f == null ? Optional.empty() : f.fatalEvent(context);
            }

            @Override
            public Optional<String> circuitBreaker(DeviceContext context) {
                DeviceCircuitBreakers b = breakers.getIfAvailable();
                return b == null ? Optional.empty() : b.stateOf(context.name());
            }
        });
    }
}
