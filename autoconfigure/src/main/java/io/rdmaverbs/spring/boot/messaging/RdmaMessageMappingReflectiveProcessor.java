package io.rdmaverbs.spring.boot.messaging;

import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;

import org.springframework.aot.hint.ReflectionHints;
import org.springframework.aot.hint.annotation.ReflectiveProcessor;
import org.springframework.aot.hint.annotation.SimpleReflectiveProcessor;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.core.MethodParameter;

/**
 * The hints of an {@link RdmaMessageMapping} method, as spring-messaging's
 * {@code MessageMappingReflectiveProcessor} gives {@code @MessageMapping}: the method, invoked by
 * reflection, and, for data binding, the payload it takes and the reply it returns (the value of a
 * {@code CompletionStage}), which the JSON converter reads and writes.
 */
final class RdmaMessageMappingReflectiveProcessor implements ReflectiveProcessor {

    private final SimpleReflectiveProcessor methods = new SimpleReflectiveProcessor();
    private final BindingReflectionHintsRegistrar bindings = new BindingReflectionHintsRegistrar();

    @Override
    public void registerReflectionHints(ReflectionHints hints, AnnotatedElement element) {
        methods.registerReflectionHints(hints, element);
        if (element instanceof Method method) {
            for (int i = 0; i < method.getParameterCount(); i++) {
                Parameter p = method.getParameters()[i];
                if (EndpointMethod.isPayload(p) && !EndpointMethod.isRaw(p.getType())) {
                    bindings.registerReflectionHints(hints, MethodParameter.forParameter(p).getGenericParameterType());
                }
            }
            Class<?> reply = EndpointMethod.replyType(method).toClass();
            if (reply != void.class && reply != Void.class && !EndpointMethod.isRaw(reply)) {
                bindings.registerReflectionHints(hints, EndpointMethod.replyType(method).getType());
            }
        }
    }
}
