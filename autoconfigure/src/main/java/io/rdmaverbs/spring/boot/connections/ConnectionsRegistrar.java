package io.rdmaverbs.spring.boot.connections;

import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.support.AutowireCandidateQualifier;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Defines one {@link RdmaListener} bean per entry of {@code rdma.verbs.connections.listeners} and one
 * {@link RdmaPeer} bean per entry of {@code .peers}, named {@code <name>RdmaListener} and
 * {@code <name>RdmaPeer} and qualified by the name, so that {@code @Qualifier("echo") RdmaPeer peer}
 * injects the peer {@code echo}.
 *
 * <p>As for the declared resources, each definition names a factory method
 * ({@link RdmaConnectionsFactory#listener(String)}, {@link RdmaConnectionsFactory#peer(String)}) with the
 * name as its argument, so ahead-of-time processing can write it as code: the set of listeners and peers
 * is fixed when the application is processed, their settings are read at startup.
 */
public final class ConnectionsRegistrar implements ImportBeanDefinitionRegistrar, EnvironmentAware {

    private Environment environment;

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
        Binder binder = Binder.get(environment);
        for (String name : names(binder, ConnectionDeclarations.LISTENERS)) {
            register(registry, listenerBeanName(name), name, RdmaListener.class, "listener",
                    ConnectionDeclarations.listenerPath(name));
        }
        for (String name : names(binder, ConnectionDeclarations.PEERS)) {
            register(registry, peerBeanName(name), name, RdmaPeer.class, "peer", ConnectionDeclarations.peerPath(name));
        }
    }

    /** The bean name of the listener {@code name}. */
    public static String listenerBeanName(String name) {
        return name + "RdmaListener";
    }

    /** The bean name of the peer {@code name}. */
    public static String peerBeanName(String name) {
        return name + "RdmaPeer";
    }

    /** The keys under {@code path}, whatever their values: a bad value is the properties' validation's to report. */
    private static Set<String> names(Binder binder, String path) {
        return new TreeSet<>(binder.bind(path, Bindable.mapOf(String.class, Object.class))
                .map(Map::keySet).orElse(Set.of()));
    }

    private static void register(BeanDefinitionRegistry registry, String beanName, String name, Class<?> type,
            String factoryMethod, String property) {
        if (registry.containsBeanDefinition(beanName)) {
            throw new InvalidConnectionSettingException(property,
                    "its bean name '" + beanName + "' is already taken by another bean",
                    "Rename the entry, or the other bean");
        }
        RootBeanDefinition definition = new RootBeanDefinition();
        definition.setTargetType(type);
        definition.setFactoryBeanName(RdmaConnectionsFactory.BEAN_NAME);
        definition.setFactoryMethodName(factoryMethod);
        definition.getConstructorArgumentValues().addIndexedArgumentValue(0, name);
        definition.addQualifier(new AutowireCandidateQualifier(Qualifier.class, name));
        // Not the inferred close(): the connections' lifecycle stops them, before the verbs teardown.
        definition.setDestroyMethodName("");
        definition.setDescription("RDMA " + factoryMethod + " declared at " + property);
        registry.registerBeanDefinition(beanName, definition);
    }
}
