package io.rdmaverbs.verbs.provider.ffm;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.rdmaverbs.verbs.Verbs;

import org.junit.jupiter.api.Test;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A native image links only the downcall shapes it was told about at build time: every descriptor and
 * option set the binding links must be in the {@code foreign} section of the shipped
 * {@code reachability-metadata.json}, and nothing else should be. The holders are found by scanning
 * (every class with a static {@link FunctionDescriptor} field), initialised in a class loader of their
 * own (so that their handles, made while libibverbs is not loaded, never reach the other tests), and
 * what they linked is read back from {@link Downcalls#linked()}.
 */
class NativeImageMetadataTest {

    static final String METADATA = "META-INF/native-image/io.rdmaverbs/rdma-verbs-core/reachability-metadata.json";

    private static final Map<String, ValueLayout> CANONICAL_NAMES = Map.of("void*", ValueLayout.ADDRESS,
            "jbyte", ValueLayout.JAVA_BYTE, "jshort", ValueLayout.JAVA_SHORT, "jint", ValueLayout.JAVA_INT,
            "jlong", ValueLayout.JAVA_LONG, "jfloat", ValueLayout.JAVA_FLOAT, "jdouble", ValueLayout.JAVA_DOUBLE,
            "jboolean", ValueLayout.JAVA_BOOLEAN, "jchar", ValueLayout.JAVA_CHAR);

    @Test
    void everyDowncallTheHoldersLinkIsInTheReachabilityMetadataAndNothingElse() throws Exception {
        Set<String> linked = new TreeSet<>();
        for (Downcalls.Linkage l : linkedByEveryHolder()) {
            linked.add(entry(l.descriptor(), l.options()));
        }
        Set<String> shipped = shippedDowncalls();

        Set<String> missing = new TreeSet<>(linked);
        missing.removeAll(shipped);
        Set<String> stale = new TreeSet<>(shipped);
        stale.removeAll(linked);
        assertThat(missing).as("downcalls the binding links but %s lacks (add them to its foreign.downcalls)",
                METADATA).isEmpty();
        assertThat(stale).as("downcalls %s lists but no holder links (remove them)", METADATA).isEmpty();
    }

    @Test
    void theScanFindsTheHoldersOfEveryNativeLibraryTheBindingCalls() throws Exception {
        List<String> holders = holderClasses(new ClassLoader(getClass().getClassLoader()) { }).stream()
                .map(Class::getName).toList();
        assertThat(holders).as("holders of libibverbs, libc and the verbs_context ops")
                .anyMatch(n -> n.endsWith("$ibv_alloc_pd"))
                .anyMatch(n -> n.endsWith("$poll"))
                .anyMatch(n -> n.endsWith("$create_qp_ex"))
                .hasSizeGreaterThan(40);
    }

    @Test
    void everyMemberTheReflectionSectionNamesExistsSoThatARenameCannotLeaveItBehind() throws Exception {
        List<String> missing = new ArrayList<>();
        for (JsonNode entry : metadata().path("reflection")) {
            Class<?> type = Class.forName(entry.path("type").asString(), false, getClass().getClassLoader());
            for (JsonNode field : entry.path("fields")) {
                if (Stream.of(type.getDeclaredFields()).noneMatch(f -> f.getName().equals(field.path("name").asString()))) {
                    missing.add(type.getName() + "." + field.path("name").asString());
                }
            }
            for (JsonNode method : entry.path("methods")) {
                List<String> parameters = new ArrayList<>();
                method.path("parameterTypes").forEach(p -> parameters.add(p.asString()));
                boolean found = Stream.of(type.getDeclaredMethods()).anyMatch(m -> m.getName().equals(
                        method.path("name").asString()) && Stream.of(m.getParameterTypes()).map(Class::getName)
                                .toList().equals(parameters));
                if (!found) {
                    missing.add(type.getName() + "." + method.path("name").asString() + parameters);
                }
            }
        }
        assertThat(missing).as("members %s names that do not exist", METADATA).isEmpty();
    }

    /** What every holder class links, initialised in a fresh class loader over verbs-core's classes. */
    private static List<Downcalls.Linkage> linkedByEveryHolder() throws Exception {
        URL classes = Verbs.class.getProtectionDomain().getCodeSource().getLocation();
        try (URLClassLoader isolated = new URLClassLoader(new URL[] { classes }, ClassLoader.getPlatformClassLoader())) {
            for (Class<?> holder : holderClasses(isolated)) {
                Class.forName(holder.getName(), true, isolated);
            }
            Method linked = Class.forName(Downcalls.class.getName(), true, isolated).getDeclaredMethod("linked");
            linked.setAccessible(true);
            List<Downcalls.Linkage> out = new ArrayList<>();
            for (Object linkage : (Set<?>) linked.invoke(null)) {
                Method descriptor = linkage.getClass().getDeclaredMethod("descriptor");
                Method options = linkage.getClass().getDeclaredMethod("options");
                descriptor.setAccessible(true);
                options.setAccessible(true);
                @SuppressWarnings("unchecked")
                List<Linker.Option> o = (List<Linker.Option>) options.invoke(linkage);
                out.add(new Downcalls.Linkage((FunctionDescriptor) descriptor.invoke(linkage), o));
            }
            assertThat(out).as("downcalls linked by the holders").isNotEmpty();
            return out;
        }
    }

    /** Every class of verbs-core that declares a static FunctionDescriptor, loaded but not initialised. */
    private static List<Class<?>> holderClasses(ClassLoader loader) throws IOException, ClassNotFoundException {
        Path root = Path.of(toUri(Verbs.class.getProtectionDomain().getCodeSource().getLocation()));
        List<String> names;
        try (Stream<Path> files = Files.walk(root)) {
            names = files.filter(f -> f.toString().endsWith(".class"))
                    .map(f -> root.relativize(f).toString().replace(f.getFileSystem().getSeparator(), "."))
                    .map(n -> n.substring(0, n.length() - ".class".length()))
                    .filter(n -> !n.endsWith("package-info"))
                    .sorted().toList();
        }
        List<Class<?>> holders = new ArrayList<>();
        for (String name : names) {
            Class<?> c = Class.forName(name, false, loader);
            for (Field f : c.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers()) && f.getType() == FunctionDescriptor.class) {
                    holders.add(c);
                    break;
                }
            }
        }
        return holders;
    }

    private static java.net.URI toUri(URL url) {
        try {
            return url.toURI();
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The downcalls of the shipped metadata, each rendered as {@link #entry} renders a linkage. */
    private static Set<String> shippedDowncalls() throws IOException {
        Set<String> out = new TreeSet<>();
        JsonNode downcalls = metadata().path("foreign").path("downcalls");
        assertThat(downcalls.isArray()).as("foreign.downcalls is an array").isTrue();
        for (JsonNode d : downcalls) {
            List<String> parameters = new ArrayList<>();
            d.path("parameterTypes").forEach(p -> parameters.add(p.asString()));
            Map<String, String> options = new TreeMap<>();
            d.path("options").properties().forEach(e -> options.put(e.getKey(), e.getValue().toString()));
            out.add(render(d.path("returnType").asString(), parameters, options));
        }
        return out;
    }

    private static JsonNode metadata() throws IOException {
        try (InputStream in = NativeImageMetadataTest.class.getClassLoader().getResourceAsStream(METADATA)) {
            assertThat(in).as("%s on the class path", METADATA).isNotNull();
            return JsonMapper.shared().readTree(in);
        }
    }

    /** One downcall as a line of the metadata: {@code {"returnType":..,"parameterTypes":[..],"options":{..}}}. */
    static String entry(FunctionDescriptor descriptor, List<Linker.Option> linkerOptions) {
        String returnType = descriptor.returnLayout().map(NativeImageMetadataTest::canonicalName).orElse("void");
        List<String> parameters = descriptor.argumentLayouts().stream().map(NativeImageMetadataTest::canonicalName)
                .toList();
        Map<String, String> options = new TreeMap<>();
        for (Linker.Option o : linkerOptions) {
            if (o.equals(Linker.Option.captureCallState("errno"))) {
                options.put("captureCallState", "true");
            } else if (o.equals(Linker.Option.critical(false))) {
                options.put("critical", "{\"allowHeapAccess\":false}");
            } else if (o.equals(Linker.Option.critical(true))) {
                options.put("critical", "{\"allowHeapAccess\":true}");
            } else {
                options.put("firstVariadicArg", String.valueOf(variadicIndex(o, parameters.size())));
            }
        }
        return render(returnType, parameters, options);
    }

    private static String render(String returnType, List<String> parameters, Map<String, String> options) {
        return "{\"returnType\": \"" + returnType + "\", \"parameterTypes\": ["
                + parameters.stream().map(p -> "\"" + p + "\"").collect(Collectors.joining(", ")) + "]"
                + (options.isEmpty() ? "" : ", \"options\": {" + options.entrySet().stream()
                        .map(e -> "\"" + e.getKey() + "\": " + e.getValue()).collect(Collectors.joining(", ")) + "}")
                + "}";
    }

    private static int variadicIndex(Linker.Option option, int parameters) {
        for (int i = 0; i <= parameters; i++) {
            if (option.equals(Linker.Option.firstVariadicArg(i))) {
                return i;
            }
        }
        throw new AssertionError("a linker option the metadata cannot express: " + option);
    }

    /** The name of {@code layout} among the native linker's canonical layouts. */
    private static String canonicalName(MemoryLayout layout) {
        for (Map.Entry<String, ValueLayout> e : CANONICAL_NAMES.entrySet()) {
            if (e.getValue().equals(layout.withoutName())) {
                assertThat(Linker.nativeLinker().canonicalLayouts().get(e.getKey())).as(e.getKey())
                        .isEqualTo(e.getValue());
                return e.getKey();
            }
        }
        throw new AssertionError("not a canonical layout, which the metadata cannot name: " + layout);
    }
}
