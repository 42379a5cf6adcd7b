package io.rdmaverbs.spring.boot.autoconfigure.leaks;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

import io.rdmaverbs.spring.boot.autoconfigure.VerbsAutoConfiguration;
import io.rdmaverbs.spring.boot.autoconfigure.VerbsProperties;
import io.rdmaverbs.spring.boot.leaks.LeakDetector;
import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.VerbsResource;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/** Leak detection, when {@code rdma.verbs.leak-detection-threshold} is set. */
@AutoConfiguration(after = VerbsAutoConfiguration.class)
@ConditionalOnBean(Verbs.class)
@ConditionalOnProperty(prefix = VerbsProperties.PREFIX, name = "leak-detection-threshold")
public final class VerbsLeakDetectionAutoConfiguration {

    /** A listener: it reads the graph lazily, since listeners are attached while the graph is created. */
    @Bean
    @ConditionalOnMissingBean
    LeakDetector rdmaVerbsLeakDetector(VerbsProperties properties, ObjectProvider<Verbs> verbs) {
        // Present, by the condition; null only when it is set to nothing, which is a mistake to report.
        Duration threshold = Objects.requireNonNull(properties.leakDetectionThreshold(),
                "rdma.verbs.leak-detection-threshold is set but empty: give a duration, e.g. 5m, or remove it");
        return new LeakDetector(threshold,
                () -> {
                    Verbs graph = verbs.getIfAvailable();
                    return graph == null ? List.<VerbsResource>of() : graph.resources();
                });
    }
}
