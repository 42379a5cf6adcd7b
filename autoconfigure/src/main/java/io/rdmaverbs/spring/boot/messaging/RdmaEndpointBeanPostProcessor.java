package io.rdmaverbs.spring.boot.messaging;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * Finds the {@link RdmaMessageMapping} methods of every {@link RdmaEndpoint} bean once it is initialized and
 * registers them, as Spring for Apache Kafka's {@code KafkaListenerAnnotationBeanPostProcessor} does. It
 * works the same on a context processed ahead of time: it is a bean like any other there, and the
 * methods' reflection hints come from {@code @RdmaMessageMapping}'s {@code @Reflective}.
 */
public final class RdmaEndpointBeanPostProcessor implements BeanPostProcessor {

    private final ObjectProvider<RdmaEndpointRegistry> registry;

    /** @param registry asked for at the first endpoint bean, so that its dependencies are not created early */
    public RdmaEndpointBeanPostProcessor(ObjectProvider<RdmaEndpointRegistry> registry) {
        this.registry = registry;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        Class<?> type = AopUtils.getTargetClass(bean);
        RdmaEndpoint endpoint = AnnotatedElementUtils.findMergedAnnotation(type, RdmaEndpoint.class);
        if (endpoint == null) {
            return bean;
        }
        Map<Method, RdmaMessageMapping> methods = MethodIntrospector.selectMethods(type,
                (MethodIntrospector.MetadataLookup<RdmaMessageMapping>) m -> AnnotatedElementUtils
                        .findMergedAnnotation(m, RdmaMessageMapping.class));
        if (methods.isEmpty()) {
            throw new IllegalStateException("@RdmaEndpoint bean '" + beanName + "' (" + type.getName()
                    + ") has no @RdmaMessageMapping method");
        }
        if (endpoint.listener().isEmpty()) {
            throw new IllegalStateException("@RdmaEndpoint bean '" + beanName + "' (" + type.getName()
                    + ") names no listener: @RdmaEndpoint(\"<listener>\"), a key under "
                    + "rdma.verbs.connections.listeners");
        }
        RdmaEndpointRegistry endpoints = registry.getObject();
        methods.forEach((method, mapping) -> endpoints.register(endpoint.listener(), List.of(mapping.value()), bean,
                method, AopUtils.selectInvocableMethod(method, bean.getClass())));
        return bean;
    }
}
