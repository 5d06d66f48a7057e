"""Plots, graphs and widgets for the notebooks. Only this package imports matplotlib and ipywidgets."""
