package io.rdmaverbs.spring.boot.autoconfigure.health;

import java.util.List;
import java.util.Optional;

import io.rdmaverbs.spring.boot.autoconfigure.VerbsAutoConfiguration;
import io.rdmaverbs.spring.boot.autoconfigure.VerbsProperties;
import io.rdmaverbs.spring.boot.autoconfigure.events.VerbsAsyncEventsAutoConfiguration;
import io.rdmaverbs.spring.boot.autoconfigure.leaks.VerbsLeakDetectionAutoConfiguration;
import io.rdmaverbs.spring.boot.autoconfigure.resilience.VerbsCircuitBreakerAutoConfiguration;
import io.rdmaverbs.spring.boot.events.DeviceFaults;
import io.rdmaverbs.spring.boot.health.DeviceHealthIndicator;
import io.rdmaverbs.spring.boot.health.VerbsHealthContributor;
import io.rdmaverbs.spring.boot.leaks.LeakDetector;
import io.rdmaverbs.spring.boot.leaks.SuspectedLeak;
import io.rdmaverbs.spring.boot.resilience.DeviceCircuitBreakers;
import io.rdmaverbs.spring.boot.resources.Declarations;
import io.rdmaverbs.verbs.AsyncEvent;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.VerbsResource;

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
 * {@code management.health.rdmaverbs.enabled=false} (or {@code rdma-verbs}: the key is lower case, as
 * Boot's own {@code diskspace} and {@code db} are, so that relaxed binding matches both spellings).
 */
@AutoConfiguration(after = { VerbsAutoConfiguration.class, VerbsAsyncEventsAutoConfiguration.class,
        VerbsCircuitBreakerAutoConfiguration.class, VerbsLeakDetectionAutoConfiguration.class })
@ConditionalOnClass(HealthContributor.class)
@ConditionalOnBean(Verbs.class)
@ConditionalOnEnabledHealthIndicator("rdmaverbs")
public final class VerbsHealthContributorAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "rdmaVerbsHealthContributor")
    VerbsHealthContributor rdmaVerbsHealthContributor(Verbs verbs, VerbsProperties properties,
            ObjectProvider<DeviceFaults> faults, ObjectProvider<DeviceCircuitBreakers> breakers,
            ObjectProvider<LeakDetector> leaks) {
        return new VerbsHealthContributor(verbs, context -> portOf(properties, context),
                new DeviceHealthIndicator.DeviceState() {

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

                    @Override
                    public List<SuspectedLeak> suspectedLeaks(List<VerbsResource> resources) {
                        LeakDetector l = leaks.getIfAvailable();
                        return l == null ? List.of() : l.suspectedLeaks(resources);
                    }
                });
    }

    private static int portOf(VerbsProperties properties, DeviceContext context) {
        Declarations.Device declared = properties.devices().get(context.name());
        return declared == null ? 1 : declared.port();
    }
}
