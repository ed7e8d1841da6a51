//! The fencelab playground page: a thin yew shell over fencelab-core.

mod app;

fn main() {
    yew::Renderer::<app::App>::new().render();
}
