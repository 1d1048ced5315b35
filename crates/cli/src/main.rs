//! The `convoy` command.

fn main() {
    println!("convoy: see README.md");
}
