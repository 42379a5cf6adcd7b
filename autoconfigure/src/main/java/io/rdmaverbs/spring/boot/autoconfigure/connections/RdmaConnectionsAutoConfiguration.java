package io.rdmaverbs.spring.boot.autoconfigure.connections;

import java.util.Objects;
import java.util.Optional;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.micrometer.tagged.TaggedCircuitBreakerMetrics;
import io.github.resilience4j.micrometer.tagged.TaggedRetryMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.rdmaverbs.spring.boot.autoconfigure.VerbsAutoConfiguration;
import io.rdmaverbs.spring.boot.connections.ConnectionDeclarations;
import io.rdmaverbs.spring.boot.connections.ConnectionObserver;
import io.rdmaverbs.spring.boot.connections.ConnectionsRegistrar;
import io.rdmaverbs.spring.boot.connections.RdmaConnectionsEventLog;
import io.rdmaverbs.spring.boot.connections.RdmaConnectionsFactory;
import io.rdmaverbs.spring.boot.connections.RdmaConnectionsLifecycle;
import io.rdmaverbs.spring.boot.health.RdmaConnectionsHealthContributor;
import io.rdmaverbs.spring.boot.metrics.ConnectionMetrics;
import io.rdmaverbs.spring.boot.resilience.AttemptGuards;
import io.rdmaverbs.spring.boot.resilience.PeerCircuitBreakers;
import io.rdmaverbs.spring.boot.resilience.PeerRetries;
import io.rdmaverbs.spring.boot.teardown.VerbsTeardown;
import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.connection.Connections;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * The listeners and peers declared under {@code rdma.verbs.connections}: one bean each
 * ({@link ConnectionsRegistrar}), the connection manager they share, their lifecycle (started after
 * every bean exists, stopped before the verbs teardown), their Resilience4j retries and circuit
 * breakers, health ({@code rdmaConnections}), metrics, and with {@code .event-log} a file of their
 * events as JSON lines ({@link RdmaConnectionsEventLog}). Nothing is created when nothing is declared,
 * or with {@code rdma.verbs.connections.enabled=false}.
 */
@AutoConfiguration(after = VerbsAutoConfiguration.class,
        afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
                "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration" })
@ConditionalOnClass(Connections.class)
@ConditionalOnBean(Verbs.class)
@ConditionalOnBooleanProperty(name = ConnectionDeclarations.PREFIX + ".enabled", matchIfMissing = true)
@ConditionalOnConnectionsDeclared
@EnableConfigurationProperties(RdmaConnectionsProperties.class)
@Import(ConnectionsRegistrar.class)
public final class RdmaConnectionsAutoConfiguration {

    /**
     * Closed by the connections' lifecycle, after every listener and peer stopped. Its channel's
     * disconnect timeout bounds each graceful close's wait for DISCONNECTED.
     */
    @Bean(destroyMethod = "")
    @ConditionalOnMissingBean
    Connections rdmaVerbsConnections(Verbs verbs, RdmaConnectionsProperties properties) {
        Connections connections = Connections.on(verbs);
        connections.channel().disconnectTimeout(properties.disconnectTimeout());
        return connections;
    }

    @Bean
    @ConditionalOnMissingBean
    PeerRetries rdmaPeerRetries() {
        return new PeerRetries();
    }

    @Bean(RdmaConnectionsFactory.BEAN_NAME)
    RdmaConnectionsFactory rdmaConnectionsFactory(Verbs verbs, Connections connections,
            RdmaConnectionsProperties properties, ListableBeanFactory beanFactory, ApplicationEventPublisher events,
            ObjectProvider<ConnectionObserver> observer, PeerRetries retries, ObjectProvider<AttemptGuards> guards) {
        return new RdmaConnectionsFactory(verbs, connections, properties.listeners(), properties.peers(), beanFactory,
                events, observer.getIfAvailable(() -> ConnectionObserver.NONE), retries,
                guards.getIfAvailable(() -> AttemptGuards.NONE));
    }

    @Bean
    RdmaConnectionsLifecycle rdmaConnectionsLifecycle(RdmaConnectionsFactory factory,
            RdmaConnectionsProperties properties, ApplicationEventPublisher events) {
        return new RdmaConnectionsLifecycle(factory, properties.disconnectTimeout(), events);
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnProperty(ConnectionDeclarations.PREFIX + ".event-log")
    RdmaConnectionsEventLog rdmaConnectionsEventLog(RdmaConnectionsProperties properties,
            ObjectProvider<VerbsTeardown> teardown) {
        return new RdmaConnectionsEventLog(Objects.requireNonNull(properties.eventLog()),
                () -> Optional.ofNullable(teardown.getIfAvailable()).flatMap(VerbsTeardown::report));
    }

    /**
     * The peers' breakers and their meters, bound by the configuration that makes the breakers: a
     * {@code @ConditionalOnBean(PeerCircuitBreakers.class)} in a sibling configuration sees only the bean
     * definitions registered before it, and nested configurations are not registered in declaration order
     * (it never matched, so {@code resilience4j.circuitbreaker.state} had no peer breaker).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(CircuitBreaker.class)
    static class CircuitBreakerConfiguration {

        @Bean
        @ConditionalOnMissingBean
        PeerCircuitBreakers rdmaPeerCircuitBreakers() {
            return new PeerCircuitBreakers();
        }

        @Configuration(proxyBeanMethods = false)
        @ConditionalOnClass({ MeterRegistry.class, TaggedCircuitBreakerMetrics.class })
        @ConditionalOnBean(MeterRegistry.class)
        static class CircuitBreakerMetricsConfiguration {

            @Bean
            @ConditionalOnMissingBean(name = "rdmaPeerCircuitBreakerMetrics")
            TaggedCircuitBreakerMetrics rdmaPeerCircuitBreakerMetrics(PeerCircuitBreakers breakers) {
                return TaggedCircuitBreakerMetrics.ofCircuitBreakerRegistry(breakers.registry());
            }
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterRegistry.class)
    @ConditionalOnBean(MeterRegistry.class)
    static class MetricsConfiguration {

        @Bean
        @ConditionalOnMissingBean
        ConnectionMetrics rdmaConnectionMetrics(ObjectProvider<RdmaConnectionsFactory> factory,
                ObjectProvider<MeterRegistry> registry) {
            return new ConnectionMetrics(factory, registry);
        }

        @Configuration(proxyBeanMethods = false)
        @ConditionalOnClass(TaggedRetryMetrics.class)
        static class RetryMetricsConfiguration {

            @Bean
            @ConditionalOnMissingBean(name = "rdmaPeerRetryMetrics")
            TaggedRetryMetrics rdmaPeerRetryMetrics(PeerRetries retries) {
                return TaggedRetryMetrics.ofRetryRegistry(retries.registry());
            }
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HealthContributor.class)
    @ConditionalOnEnabledHealthIndicator("rdmaconnections")
    static class HealthConfiguration {

        @Bean
        @ConditionalOnMissingBean(name = "rdmaConnectionsHealthContributor")
        RdmaConnectionsHealthContributor rdmaConnectionsHealthContributor(RdmaConnectionsFactory factory) {
            return new RdmaConnectionsHealthContributor(factory);
        }
    }
}
