package io.rdmaverbs.spring.boot.autoconfigure.messaging;

import java.util.ArrayList;
import java.util.List;

import io.micrometer.observation.ObservationRegistry;
import io.rdmaverbs.spring.boot.autoconfigure.connections.RdmaConnectionsAutoConfiguration;
import io.rdmaverbs.spring.boot.autoconfigure.connections.RdmaConnectionsProperties;
import io.rdmaverbs.spring.boot.connections.RdmaConnectionsFactory;
import io.rdmaverbs.spring.boot.messaging.DefaultRdmaErrorHandler;
import io.rdmaverbs.spring.boot.messaging.EndpointInvocationListener;
import io.rdmaverbs.spring.boot.messaging.EndpointSupport;
import io.rdmaverbs.spring.boot.messaging.RdmaEndpointBeanPostProcessor;
import io.rdmaverbs.spring.boot.messaging.RdmaEndpointRegistry;
import io.rdmaverbs.spring.boot.messaging.RdmaErrorHandler;
import io.rdmaverbs.spring.boot.messaging.RdmaMessageRecoverer;
import io.rdmaverbs.spring.boot.messaging.RdmaTemplate;
import io.rdmaverbs.spring.boot.messaging.converter.BytesMessageConverter;
import io.rdmaverbs.spring.boot.messaging.converter.JacksonJsonMessageConverter;
import io.rdmaverbs.spring.boot.messaging.converter.RdmaMessageConverter;
import io.rdmaverbs.spring.boot.messaging.converter.RdmaMessageConverters;
import io.rdmaverbs.spring.boot.messaging.converter.StringMessageConverter;
import io.rdmaverbs.spring.boot.messaging.observation.RdmaReceiverObservationConvention;
import io.rdmaverbs.spring.boot.messaging.observation.RdmaSenderObservationConvention;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.convert.support.DefaultConversionService;

/**
 * Messaging on the declared listeners and peers, wiring only: the {@link RdmaTemplate}, the converters
 * (the application's {@link RdmaMessageConverter} beans first, then bytes, text and, with Jackson 3, JSON
 * through Boot's {@code JsonMapper}), the endpoint registry and the post-processor that fills it, the error
 * handler of one-way messages (the application's {@link RdmaErrorHandler}, or the default one with its
 * {@link RdmaMessageRecoverer}), and the observations when the application has an
 * {@link ObservationRegistry}. On whenever connections are declared, unless
 * {@code rdma.verbs.messaging.enabled=false}.
 */
@AutoConfiguration(after = RdmaConnectionsAutoConfiguration.class,
        afterName = { "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration",
                "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration" })
@ConditionalOnClass(ObservationRegistry.class)
@ConditionalOnBean(RdmaConnectionsFactory.class)
@ConditionalOnBooleanProperty(name = RdmaMessagingProperties.PREFIX + ".enabled", matchIfMissing = true)
@EnableConfigurationProperties(RdmaMessagingProperties.class)
public final class RdmaMessagingAutoConfiguration {

    /** The bean name of the JSON converter, which comes after the others. */
    static final String JSON_CONVERTER = "rdmaJsonMessageConverter";

    @Bean
    static RdmaEndpointBeanPostProcessor rdmaEndpointBeanPostProcessor(ObjectProvider<RdmaEndpointRegistry> registry) {
        return new RdmaEndpointBeanPostProcessor(registry);
    }

    @Bean
    @ConditionalOnMissingBean
    RdmaMessageConverters rdmaMessageConverters(ObjectProvider<RdmaMessageConverter> converters,
            ListableBeanFactory beans) {
        List<RdmaMessageConverter> all = new ArrayList<>();
        RdmaMessageConverter json = beans.containsBean(JSON_CONVERTER)
                ? beans.getBean(JSON_CONVERTER, RdmaMessageConverter.class) : null;
        converters.orderedStream().filter(c -> c != json).forEach(all::add);
        all.add(new BytesMessageConverter());
        all.add(new StringMessageConverter());
        if (json != null) {
            all.add(json);
        }
        return new RdmaMessageConverters(all);
    }

    @Bean
    @ConditionalOnMissingBean
    RdmaTemplate rdmaTemplate(RdmaConnectionsFactory factory, RdmaMessageConverters converters,
            ObjectProvider<ObservationRegistry> registry, ObjectProvider<RdmaSenderObservationConvention> convention) {
        return new RdmaTemplate(factory::peers, converters, registry.getIfUnique(() -> ObservationRegistry.NOOP),
                convention.getIfUnique());
    }

    @Bean
    @ConditionalOnMissingBean
    RdmaEndpointRegistry rdmaEndpointRegistry(RdmaConnectionsProperties connections, RdmaMessageConverters converters,
            ObjectProvider<RdmaErrorHandler> errorHandler, ObjectProvider<RdmaMessageRecoverer> recoverer,
            ObjectProvider<ObservationRegistry> registry, ObjectProvider<RdmaReceiverObservationConvention> convention,
            ObjectProvider<EndpointInvocationListener> invocations) {
        return new RdmaEndpointRegistry(connections.listeners().keySet(), converters,
                DefaultConversionService.getSharedInstance(),
                () -> new EndpointSupport(converters,
                        errorHandler.getIfUnique(() -> new DefaultRdmaErrorHandler(recoverer.getIfUnique())),
                        registry.getIfUnique(() -> ObservationRegistry.NOOP), convention.getIfUnique(),
                        invocations.orderedStream().toList()));
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(JsonMapper.class)
    @ConditionalOnBooleanProperty(name = RdmaMessagingProperties.PREFIX + ".json", matchIfMissing = true)
    static class JsonConfiguration {

        @Bean(JSON_CONVERTER)
        RdmaMessageConverter rdmaJsonMessageConverter(ObjectProvider<JsonMapper> mapper) {
            return new JacksonJsonMessageConverter(mapper.getIfUnique(() -> JsonMapper.builder().build()));
        }
    }
}
